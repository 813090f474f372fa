/* pins.c: the sha256 of NVIDIA's published redistrib manifests. The table
 * is generated from tests/fixtures/manifest-pins.tsv (version, url, sha256):
 *   awk -F'\t' 'NR>1{printf "\t{ \"redistrib_%s.json\", \"%s\" },\n",$1,$3}'
 * A manifest whose name is pinned must hash to the pinned value. */
#include "base/base.h"
#include "install/install_int.h"

#include <string.h>

static const struct {
	const char *name;
	const char *sha256;
} pins[] = {
	{ "redistrib_8.9.4.25.json",
	  "02258dba8384860c9230fe3c78522e7bd8e350e461ccd37a8d932cb64127ba57" },
	{ "redistrib_8.9.6.json",
	  "6069ef92a2b9bb18cebfbc944964bd2b024b76f2c2c35a43812982e0bc45cf0c" },
	{ "redistrib_8.9.7.29.json",
	  "a0734f26f068522464fa09b2f2c186dfbe6ad7407a88ea0c50dd331f0c3389ec" },
	{ "redistrib_9.1.1.json",
	  "d22d569405e5683ff8e563d00d6e8c27e5e6a902c564c23d752b22a8b8b3fe20" },
	{ "redistrib_9.2.0.json",
	  "6852eb279b95d2b5775f7a7737ec133bed059107f863cdd8588f3ae6f13eadd7" },
	{ "redistrib_9.2.1.json",
	  "9a4198c59b2e66b2b115a736ebe4dc8f3dc6d78161bb494702f824da8fc77b99" },
	{ "redistrib_9.3.0.json",
	  "d17d9a7878365736758550294f03e633a0b023bec879bf173349bfb34781972e" },
	{ "redistrib_9.4.0.json",
	  "6eeaafc5cc3d4bb2f283e6298e4c55d4c59d7c83c5d9fd8721a2c0e55aee4e54" },
	{ "redistrib_9.5.0.json",
	  "3939f0533fdd0d3aa7edd1ac358d43da18e438e5d8f39c3c15bb72519bad7fb5" },
	{ "redistrib_9.5.1.json",
	  "a5484eef575bbb1fd4f96136cf12244ebc194b661f5ae9ed3b8aaa07e06434b1" },
	{ "redistrib_9.6.0.json",
	  "6dd9a931d981fe5afc7e7ed0c422a4035b1411db4e28a39cf2429e62e3efcd3e" },
	{ "redistrib_9.7.0.json",
	  "e715c1d028585d228c4678c2cdc5ad9a34fde54515a1c52aa60e36021a90dd90" },
	{ "redistrib_9.7.1.json",
	  "f9bc411a4908f0931e7323f89049e3a38453632c4ac5f4aa3220af69ddded9dc" },
	{ "redistrib_9.8.0.json",
	  "a1599fa1f8dcb81235157be5de5ab7d3936e75dfc4e1e442d07970afad3c4843" },
	{ "redistrib_9.9.0.json",
	  "614d3c5ceb02e1eb1508f0bc9231c3c03c113bb514b950a1108adb9fde801c77" },
	{ "redistrib_9.10.0.json",
	  "d06b8df4d305dd7021838ffb2a26c2a861d522f2a129c6a372fad72ca009b1f1" },
	{ "redistrib_9.10.1.json",
	  "2ac8d48d3ab4de1acdce65fa3e8ecfb14750d4e101b05fe3307d2f95f2740563" },
	{ "redistrib_9.10.2.json",
	  "73a33a12bbb8eb12b105a515b5921db2e328b3ca679f92b6184c7f32fe94a8b0" },
	{ "redistrib_9.11.0.json",
	  "7a16458ea21573e18d190df0c8d68ea1e8c82faf1bcfad4a39ceb600c26639cc" },
	{ "redistrib_9.11.1.json",
	  "ace81583a37b8fe238324b73087e32f290099cbd6d012772b9f14ec4efac1f21" },
	{ "redistrib_9.12.0.json",
	  "39bb68f0ca6abdbf9bab3ecb1cb18f458d635f72d72ede98a308216fd22efab3" },
	{ "redistrib_9.13.0.json",
	  "55e3eb3ccb1ca543a7811312466f44841d630d3b2252f5763ad53509d2c09fbf" },
	{ "redistrib_9.13.1.json",
	  "13d6a68bf4069a51fe653a769c41f9b0e3003e7f93ccf0f6cb89f642d10e2ccf" },
	{ "redistrib_9.14.0.json",
	  "fe58e8e9559ef5c61ab7a9954472d16acdcbad3b099004296ae410d25982830d" },
	{ "redistrib_9.15.0.json",
	  "2396ed88435a0f6b400db53ac229f49aa2425282994a186e867ea367c20fd352" },
	{ "redistrib_9.15.1.json",
	  "8c9897222c644528a25e0bd4d04d5ee9b9cb57995307c176d4dce28c25e415ef" },
	{ "redistrib_9.16.0.json",
	  "c95167877ac0ded30a29accc9d337a5e60cd70d1a01a3492de56624b39eab868" },
	{ "redistrib_9.17.0.json",
	  "5c2fe21bd5626f1078caf030c569d894df44a844bfe3b0475ae5f55a4b64c395" },
	{ "redistrib_9.17.1.json",
	  "f7583aa8652b5434ecd85bdc735ee2b5f1171e6841bf626b70e4937d4b2a2c88" },
	{ "redistrib_9.18.0.json",
	  "f625c2704c7411ab35e02956a5937346e61f375dbf8bdf375a1061975b6b224b" },
	{ "redistrib_9.18.1.json",
	  "f1967c08554f07d1a85638e44debaa4ad75696fc170cf1f1f1718ae13d3c64da" },
	{ "redistrib_9.19.0.json",
	  "6ad4f2c047ee03131d1efb95db56f78c24953cb30880a2edcf99407ff9362a04" },
	{ "redistrib_9.19.1.json",
	  "ee7bd6872b8611017bfc9ac99a4a71932652d1851b5917aa2c66bf29a12f8fd4" },
	{ "redistrib_9.20.0.json",
	  "488be2657edfaaa9eada30247de95e81e3ce767f504dccb847d422cd358226a0" },
	{ "redistrib_9.21.0.json",
	  "946dfcb95f1d5552546190eb68e72c2090a9a3849a46378c202b3a74c55da505" },
	{ "redistrib_9.21.1.json",
	  "3c51347afefe8bf2a051a1a3160fee48c46182b019435e7805f3c1126d0ee330" },
	{ "redistrib_9.22.0.json",
	  "3dbb9002d52112ef69aa09187f523ef1ff07f8baf3892ee01e540af639d8f55f" },
};

const char *
cv_pins_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++)
		if (strcmp(pins[i].name, name) == 0)
			return pins[i].sha256;
	return NULL;
}

int
cv_pins_check(const char *name, const char *data, size_t len,
	      struct cv_err *err)
{
	const char *want = cv_pins_lookup(name);
	struct cv_sha256 *h;
	char got[65];

	if (want == NULL)
		return 0;
	h = cv_sha256_new();
	cv_sha256_update(h, data, len);
	cv_sha256_final(h, got);
	cv_sha256_free(h);
	if (strcmp(got, want) == 0)
		return 0;
	/* one short line: the hashes help nobody decide, the setting does */
	cv_err_set(err, CV_EDATA,
		   "manifest %s is not the one NVIDIA published (its sha256 "
		   "differs from cudnnvm's pin): tampering, or a mirror that "
		   "makes its own manifests",
		   name);
	return cv_err_hint(err, "cudnnvm config set remote.verify_pins mirror");
}
