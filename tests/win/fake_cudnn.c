/* fake_cudnn.c: a stand-in for NVIDIA's cudnn64_<major>.dll, built as a
 * real x86-64 PE DLL by mingw (tests/win/mkcudnn.sh): it exports what the
 * validation child calls (cudnnGetVersion, cudnnGetCudartVersion and the
 * sub-library checks), and the checks call into the ops sub-library it
 * imports, so that the loader must find a second cuDNN DLL as the real
 * one does. CV_FAKE_VERSION, CV_FAKE_CUDART: the numbers it reports. */
#include <stddef.h>

#ifdef CV_FAKE_SUB
__declspec(dllexport) int cudnn_fake_sub_ok(void);

int
cudnn_fake_sub_ok(void)
{
	return 0;
}
#else
__declspec(dllimport) int cudnn_fake_sub_ok(void);

#define EXPORT __declspec(dllexport)

EXPORT size_t cudnnGetVersion(void);
EXPORT size_t cudnnGetCudartVersion(void);
EXPORT int cudnnOpsInferVersionCheck(void);
EXPORT int cudnnCnnInferVersionCheck(void);
EXPORT int cudnnGraphVersionCheck(void);
EXPORT int cudnnOpsVersionCheck(void);
EXPORT int cudnnCnnVersionCheck(void);

size_t
cudnnGetVersion(void)
{
	return CV_FAKE_VERSION;
}

size_t
cudnnGetCudartVersion(void)
{
	return CV_FAKE_CUDART;
}

int
cudnnOpsInferVersionCheck(void)
{
	return cudnn_fake_sub_ok();
}

int
cudnnCnnInferVersionCheck(void)
{
	return cudnn_fake_sub_ok();
}

int
cudnnGraphVersionCheck(void)
{
	return cudnn_fake_sub_ok();
}

int
cudnnOpsVersionCheck(void)
{
	return cudnn_fake_sub_ok();
}

int
cudnnCnnVersionCheck(void)
{
	return cudnn_fake_sub_ok();
}
#endif
