/* http_winhttp.c: cv_transport_get over WinHTTP, for Windows, where there
 * is no libcurl to ship. HTTPS only, each redirect too (followed here, not
 * by WinHTTP, so that every hop's certificate is checked); TLS 1.2 or
 * newer. With a ca_file WinHTTP is told to let an unknown CA through the
 * handshake, and the server's chain is then checked here with CryptoAPI
 * against that CA alone (an exclusive root) and the host name, before any
 * header beyond the status or byte of the body is used. Without one,
 * WinHTTP checks against the system's store. */
#include "base/base.h"
#include "install/backend_int.h"

/* winsock2.h before windows.h, which would pull in the old winsock.h */
#include <winsock2.h>
#include <ws2tcpip.h>

#include <windows.h>

#include <shlwapi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wincrypt.h>
#include <winhttp.h>

#define MAX_REDIRECTS 5
#define BODY_BLOCK    (512 * 1024)
#define CA_FILE_MAX   (4 << 20)

static wchar_t *
widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = xmalloc((size_t)n * sizeof *w);
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

static char *
narrow(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return xstrdup("");
	s = xmalloc((size_t)n);
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

/* WinHTTP's error codes as words (FormatMessage knows them only from
 * winhttp.dll's own message table, which wine lacks). */
static const char *
why(DWORD e)
{
	switch (e) {
	case ERROR_WINHTTP_TIMEOUT:
	case WSAETIMEDOUT: /* wine's WinHTTP, when a read waits too long */
		return "timed out";
	case ERROR_WINHTTP_NAME_NOT_RESOLVED:
		return "could not resolve the host name";
	case ERROR_WINHTTP_CANNOT_CONNECT:
		return "could not connect";
	case ERROR_WINHTTP_CONNECTION_ERROR:
		return "the connection was reset";
	case ERROR_WINHTTP_SECURE_FAILURE:
	case ERROR_WINHTTP_SECURE_CHANNEL_ERROR:
		return "the TLS handshake failed";
	case ERROR_WINHTTP_INVALID_URL:
	case ERROR_WINHTTP_UNRECOGNIZED_SCHEME:
		return "not a valid URL";
	case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
		return "the server's answer is not HTTP";
	default:
		return "network error";
	}
}

/* The answer of the transfer in flight on this thread, whose fail, why
 * and retryable the errors below fill as they write err (the same calls
 * serve every step, few of which see the answer). */
static _Thread_local struct cv_transport_resp *cur;

static void
failed(int kind, int retryable, const char *fmt, ...)
{
	va_list ap;

	if (cur == NULL || cur->fail != CV_TF_NONE)
		return;
	cur->fail = kind;
	cur->retryable = retryable;
	va_start(ap, fmt);
	vsnprintf(cur->why, sizeof cur->why, fmt, ap);
	va_end(ap);
}

/* What WinHTTP's error e means to the caller's retries and message. */
static void
failed_with(DWORD e)
{
	int kind = CV_TF_OTHER, retry = 0;

	switch (e) {
	case ERROR_WINHTTP_TIMEOUT:
	case WSAETIMEDOUT:
		kind = CV_TF_TIMEOUT;
		break;
	case ERROR_WINHTTP_CANNOT_CONNECT:
		kind = CV_TF_CONNECT;
		retry = 1;
		break;
	case ERROR_WINHTTP_CONNECTION_ERROR:
		kind = CV_TF_RECV;
		retry = 1;
		break;
	case ERROR_WINHTTP_SECURE_FAILURE:
	case ERROR_WINHTTP_SECURE_CHANNEL_ERROR:
		kind = CV_TF_TLS;
		break;
	case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
		kind = CV_TF_CUT;
		retry = 1;
		break;
	default:
		break;
	}
	failed(kind, retry, "%s (WinHTTP error %lu)", why(e), (unsigned long)e);
}

static int
net_error(struct cv_err *err, const char *doing, const char *url)
{
	DWORD e = GetLastError();
	char *shown = cv_url_redact(url);

	failed_with(e);
	int rc = cv_err_set(err, CV_ENETWORK, "%s %s: %s (WinHTTP error %lu)",
			    doing, shown, why(e), (unsigned long)e);

	free(shown);
	if (e == ERROR_WINHTTP_TIMEOUT || e == WSAETIMEDOUT)
		return cv_err_hint(err,
				   "cudnnvm config set remote.timeout 120");
	if (e == ERROR_WINHTTP_SECURE_FAILURE ||
	    e == ERROR_WINHTTP_SECURE_CHANNEL_ERROR)
		return cv_err_hint(
			err,
			"cudnnvm config set remote.ca_file /path/to/ca.pem");
	return rc;
}

/* A request through [remote] proxy that failed: say which proxy. */
static int
proxy_error(struct cv_err *err, const char *url, const char *proxy)
{
	DWORD e = GetLastError();
	char *shown = cv_url_redact(url), *via = cv_url_redact(proxy);
	int rc;

	failed_with(e);
	rc = cv_err_set(err, CV_ENETWORK,
			"cannot download %s via proxy %s: %s (WinHTTP "
			"error %lu); check the proxy settings ([remote] "
			"proxy)",
			shown, via, why(e), (unsigned long)e);

	free(shown);
	free(via);
	return rc;
}

/* ---- the CA of [remote] ca_file as a store ---- */

static char *
slurp(const char *path, struct cv_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (f == NULL) {
		cv_err_errno(err, CV_ECONFIG, "remote.ca_file names '%.200s'",
			     path);
		return NULL;
	}
	buf = xmalloc(CA_FILE_MAX + 1);
	n = fread(buf, 1, CA_FILE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Every PEM certificate of the file, in a store of its own; NULL (with
 * err) when the file cannot be read or holds none. */
static HCERTSTORE
ca_store(const char *path, struct cv_err *err)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	static const char end[] = "-----END CERTIFICATE-----";
	char *pem = slurp(path, err), *p, *q;
	HCERTSTORE st;
	int added = 0;

	if (pem == NULL)
		return NULL;
	st = CertOpenStore(CERT_STORE_PROV_MEMORY, 0, 0,
			   CERT_STORE_CREATE_NEW_FLAG, NULL);
	for (p = pem; st && (p = strstr(p, begin)) && (q = strstr(p, end));
	     p = q) {
		DWORD len = 0;
		BYTE *der;

		q += sizeof end - 1;
		if (!CryptStringToBinaryA(p, (DWORD)(q - p),
					  CRYPT_STRING_BASE64HEADER, NULL, &len,
					  NULL, NULL))
			continue;
		der = xmalloc(len);
		if (CryptStringToBinaryA(p, (DWORD)(q - p),
					 CRYPT_STRING_BASE64HEADER, der, &len,
					 NULL, NULL) &&
		    CertAddEncodedCertificateToStore(st, X509_ASN_ENCODING, der,
						     len, CERT_STORE_ADD_ALWAYS,
						     NULL))
			added++;
		free(der);
	}
	free(pem);
	if (st != NULL && added > 0)
		return st;
	if (st != NULL)
		CertCloseStore(st, 0);
	cv_err_set(err, CV_ECONFIG,
		   "remote.ca_file '%.200s' holds no PEM certificate", path);
	return NULL;
}

/* ---- the server's chain, checked against that CA alone ---- */

static int
tls_refused(struct cv_err *err, const char *url, const char *what)
{
	failed(CV_TF_TLS, 0, "%s", what);
	char *shown = cv_url_redact(url);

	cv_err_set(err, CV_ENETWORK,
		   "TLS verification failed for %s: %s; a private CA goes in "
		   "remote.ca_file",
		   shown, what);
	free(shown);
	return cv_err_hint(err,
			   "cudnnvm config set remote.ca_file /path/to/ca.pem");
}

/* 1 when `host` is an IP address that the certificate's subjectAltName
 * lists, 0 when it lists it not, -1 when host is a name, not an address.
 * CryptoAPI's SSL policy matches names; wine's matches no address. */
static int
names_address(PCCERT_CONTEXT cert, const wchar_t *host)
{
	unsigned char want[16];
	wchar_t v6[64];
	size_t wlen = 4, hl = wcslen(host);
	PCERT_EXTENSION ext;
	CERT_ALT_NAME_INFO *alt = NULL;
	DWORD len = 0;
	int found = 0;

	if (InetPtonW(AF_INET, host, want) != 1) {
		/* WinHttpCrackUrl keeps an IPv6 address in brackets */
		if (hl < 3 || hl >= 64 || host[0] != L'[' ||
		    host[hl - 1] != L']')
			return -1;
		wcsncpy(v6, host + 1, hl - 2);
		v6[hl - 2] = L'\0';
		if (InetPtonW(AF_INET6, v6, want) != 1)
			return -1;
		wlen = 16;
	}
	ext = CertFindExtension(szOID_SUBJECT_ALT_NAME2,
				cert->pCertInfo->cExtension,
				cert->pCertInfo->rgExtension);
	if (ext == NULL ||
	    !CryptDecodeObjectEx(X509_ASN_ENCODING, X509_ALTERNATE_NAME,
				 ext->Value.pbData, ext->Value.cbData,
				 CRYPT_DECODE_ALLOC_FLAG, NULL, &alt, &len))
		return 0;
	for (DWORD i = 0; i < alt->cAltEntry && !found; i++) {
		const CERT_ALT_NAME_ENTRY *e = &alt->rgAltEntry[i];
		found = e->dwAltNameChoice == CERT_ALT_NAME_IP_ADDRESS &&
			e->IPAddress.cbData == wlen &&
			memcmp(e->IPAddress.pbData, want, wlen) == 0;
	}
	LocalFree(alt);
	return found;
}

/* 1 when the chain ends at a self-issued certificate of `roots`. */
static int
ends_in(PCCERT_CHAIN_CONTEXT chain, HCERTSTORE roots)
{
	PCERT_SIMPLE_CHAIN c;
	PCCERT_CONTEXT top, found;

	if (chain->cChain == 0 || chain->rgpChain[0]->cElement == 0)
		return 0;
	c = chain->rgpChain[0];
	top = c->rgpElement[c->cElement - 1]->pCertContext;
	found = CertFindCertificateInStore(roots, X509_ASN_ENCODING, 0,
					   CERT_FIND_EXISTING, top, NULL);
	if (found == NULL)
		return 0;
	CertFreeCertificateContext(found);
	return CertCompareCertificateName(X509_ASN_ENCODING,
					  &top->pCertInfo->Subject,
					  &top->pCertInfo->Issuer);
}

/* What is wrong with the chain, or NULL. Its own trust status is read as
 * well as the SSL policy's verdict: wine's policy passes a chain that
 * stops short of any root. */
static const char *
chain_problem(PCCERT_CHAIN_CONTEXT chain, const wchar_t *host, int addr,
	      HCERTSTORE roots, char *buf, size_t n)
{
	SSL_EXTRA_CERT_CHAIN_POLICY_PARA ssl = { 0 };
	CERT_CHAIN_POLICY_PARA pol = { 0 };
	CERT_CHAIN_POLICY_STATUS st = { 0 };
	DWORD trust = chain->TrustStatus.dwErrorStatus;
	const char *untrusted =
		roots ? "the server's certificate is not from remote.ca_file's "
			"CA"
		      : "the server's certificate is not from a CA this "
			"system trusts";

	if (addr == 0)
		return "the certificate does not name this address";
	if (trust &
	    (CERT_TRUST_IS_PARTIAL_CHAIN | CERT_TRUST_IS_UNTRUSTED_ROOT))
		return untrusted;
	if (trust & CERT_TRUST_IS_NOT_TIME_VALID)
		return "the certificate has expired or is not yet valid";
	if (trust != CERT_TRUST_NO_ERROR) {
		snprintf(buf, n, "certificate chain error 0x%08lx",
			 (unsigned long)trust);
		return buf;
	}
	if (roots != NULL && !ends_in(chain, roots))
		return untrusted;
	ssl.cbSize = sizeof ssl;
	ssl.dwAuthType = AUTHTYPE_SERVER;
	ssl.pwszServerName = (wchar_t *)host;
	/* an address was matched against the certificate's IP entries */
	if (addr == 1)
		ssl.fdwChecks = SECURITY_FLAG_IGNORE_CERT_CN_INVALID;
	pol.cbSize = sizeof pol;
	pol.pvExtraPolicyPara = &ssl;
	st.cbSize = sizeof st;
	if (!CertVerifyCertificateChainPolicy(CERT_CHAIN_POLICY_SSL, chain,
					      &pol, &st))
		return "cannot check the certificate chain";
	if (st.dwError == (DWORD)CERT_E_UNTRUSTEDROOT ||
	    st.dwError == (DWORD)CERT_E_CHAINING)
		return untrusted;
	if (st.dwError == (DWORD)CERT_E_CN_NO_MATCH)
		return "the certificate does not name this host";
	if (st.dwError == (DWORD)CERT_E_EXPIRED)
		return "the certificate has expired or is not yet valid";
	if (st.dwError != 0) {
		snprintf(buf, n, "certificate error 0x%08lx",
			 (unsigned long)st.dwError);
		return buf;
	}
	return NULL;
}

/* The chain from the server's certificate must pass the SSL policy for
 * `host` (name, validity, usage) and end at a CA of `roots`, the only
 * roots its chain engine knows (NULL: the system's). */
static int
check_chain(PCCERT_CONTEXT srv, HCERTSTORE roots, const wchar_t *host,
	    const char *url, struct cv_err *err)
{
	CERT_CHAIN_ENGINE_CONFIG cfg = { 0 };
	CERT_CHAIN_PARA para = { 0 };
	HCERTCHAINENGINE eng = NULL; /* NULL: the system's engine */
	PCCERT_CHAIN_CONTEXT chain = NULL;
	const char *bad = NULL;
	char buf[96];

	/* the Windows 7 layout, which has hExclusiveRoot: Windows takes it
	 * and wine takes no later one */
	cfg.cbSize =
		offsetof(CERT_CHAIN_ENGINE_CONFIG, hExclusiveTrustedPeople) +
		sizeof cfg.hExclusiveTrustedPeople;
	cfg.hExclusiveRoot = roots;
	para.cbSize = sizeof para;
	if (roots != NULL && !CertCreateCertificateChainEngine(&cfg, &eng))
		return tls_refused(err, url, "cannot build a chain engine");
	if (!CertGetCertificateChain(eng, srv, NULL, srv->hCertStore, &para, 0,
				     NULL, &chain))
		bad = "cannot build the certificate chain";
	else
		bad = chain_problem(chain, host, names_address(srv, host),
				    roots, buf, sizeof buf);
	if (chain != NULL)
		CertFreeCertificateChain(chain);
	if (eng != NULL)
		CertFreeCertificateChainEngine(eng);
	return bad ? tls_refused(err, url, bad) : 0;
}

/* Every response's certificate is checked here, whichever CA decides:
 * a connection WinHTTP keeps from an earlier request (wine keeps them
 * across sessions) had its handshake checked under that request's
 * settings, not necessarily this one's. */
static int
verify_server(HINTERNET req, const char *ca_file, const wchar_t *host,
	      const char *url, struct cv_err *err)
{
	PCCERT_CONTEXT srv = NULL;
	DWORD len = sizeof srv;
	HCERTSTORE roots = NULL;
	int rc;

	if (!WinHttpQueryOption(req, WINHTTP_OPTION_SERVER_CERT_CONTEXT, &srv,
				&len) ||
	    srv == NULL)
		return tls_refused(err, url, "no server certificate");
	if (ca_file != NULL && (roots = ca_store(ca_file, err)) == NULL)
		rc = err->code;
	else
		rc = check_chain(srv, roots, host, url, err);
	if (roots != NULL)
		CertCloseStore(roots, 0);
	CertFreeCertificateContext(srv);
	return rc;
}

/* ---- one request ---- */

struct hop {
	HINTERNET conn, req;
	char *shown;   /* the URL for messages, without a password */
	int at_origin; /* the host and port the credentials belong to */
	wchar_t host[256];
};

/* The credentials of https://user:pass@host/, sent to that host and port
 * only, whichever hop reaches it, and (unlike libcurl, which sends them
 * at once) only once that host answered 401 over a connection whose
 * certificate passed: WinHTTP sends a request before its certificate can
 * be checked here, and with a ca_file it does not check the CA itself. */
struct auth {
	char *line; /* "Authorization: Basic ...", NULL: none */
	int armed;  /* 1: the next request to the origin carries it */
	wchar_t host[256];
	INTERNET_PORT port;
};

static int
unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The Authorization line for the user:pass of `url` (percent-decoded, as
 * a URL carries them), or NULL when it has none. */
static char *
basic_line(const char *url)
{
	char *ui = cv_url_userinfo(url), *plain, *b64, *line = NULL;
	size_t n = 0;
	DWORD len = 0;

	if (ui == NULL)
		return NULL;
	plain = xmalloc(strlen(ui) + 1);
	for (const char *p = ui; *p; p++) {
		if (p[0] == '%' && unhex(p[1]) >= 0 && unhex(p[2]) >= 0) {
			plain[n++] = (char)(unhex(p[1]) * 16 + unhex(p[2]));
			p += 2;
		} else
			plain[n++] = *p;
	}
	if (CryptBinaryToStringA((const BYTE *)plain, (DWORD)n,
				 CRYPT_STRING_BASE64 | CRYPT_STRING_NOCRLF,
				 NULL, &len)) {
		b64 = xmalloc(len + 1);
		if (CryptBinaryToStringA((const BYTE *)plain, (DWORD)n,
					 CRYPT_STRING_BASE64 |
						 CRYPT_STRING_NOCRLF,
					 b64, &len))
			line = xasprintf("Authorization: Basic %.*s", (int)len,
					 b64);
		SecureZeroMemory(b64, len);
		free(b64);
	}
	SecureZeroMemory(plain, n);
	SecureZeroMemory(ui, strlen(ui));
	free(plain);
	free(ui);
	return line;
}

static void
hop_close(struct hop *h)
{
	if (h->req != NULL)
		WinHttpCloseHandle(h->req);
	if (h->conn != NULL)
		WinHttpCloseHandle(h->conn);
	h->req = h->conn = NULL;
	free(h->shown);
	h->shown = NULL;
}

static int
add_header(HINTERNET req, const char *line)
{
	wchar_t *w = widen(line);
	BOOL ok = w && WinHttpAddRequestHeaders(req, w, (DWORD)-1L,
						WINHTTP_ADDREQ_FLAG_ADD);

	free(w);
	return ok ? 0 : -1;
}

/* Connect, send the request for `url` and read the status line and
 * headers; the certificate is checked before the caller sees them. */
static int
hop_open(HINTERNET s, struct hop *h, struct auth *a, const char *url,
	 const struct cv_transport_req *q, struct cv_err *err)
{
	URL_COMPONENTS uc = { 0 };
	wchar_t *wurl = widen(url), path[4096];
	char line[512];
	DWORD v;

	h->shown = cv_url_redact(url);
	uc.dwStructSize = sizeof uc;
	uc.lpszHostName = h->host;
	uc.dwHostNameLength = sizeof h->host / sizeof *h->host;
	uc.lpszUrlPath = path;
	uc.dwUrlPathLength = sizeof path / sizeof *path;
	/* the query string is part of what is asked for */
	uc.dwExtraInfoLength = 0;
	if (wurl == NULL || !WinHttpCrackUrl(wurl, 0, 0, &uc) ||
	    uc.nScheme != INTERNET_SCHEME_HTTPS) {
		free(wurl);
		failed(CV_TF_INSECURE, 0, "not an https URL");
		return cv_err_set(err, CV_ENETWORK,
				  "refused %s: not an https URL", h->shown);
	}
	free(wurl);
	h->conn = WinHttpConnect(s, h->host, uc.nPort, 0);
	if (h->conn == NULL)
		return net_error(err, "cannot download", url);
	h->req = WinHttpOpenRequest(h->conn, q->head ? L"HEAD" : L"GET", path,
				    NULL, WINHTTP_NO_REFERER,
				    WINHTTP_DEFAULT_ACCEPT_TYPES,
				    WINHTTP_FLAG_SECURE);
	if (h->req == NULL)
		return net_error(err, "cannot download", url);
	v = WINHTTP_DISABLE_REDIRECTS;
	WinHttpSetOption(h->req, WINHTTP_OPTION_DISABLE_FEATURE, &v, sizeof v);
	/* the wait for the answer's headers has a timeout of its own, apart
	 * from WinHttpSetTimeouts' (90 s unless set) */
	v = q->timeout > 0 ? (DWORD)(q->timeout * 1000) : 30000;
	WinHttpSetOption(h->req, WINHTTP_OPTION_RECEIVE_RESPONSE_TIMEOUT, &v,
			 sizeof v);
	if (q->ca_file != NULL) {
		/* the CA and the name are checked below, against ca_file
		 * and (for an address, which wine's check does not match)
		 * the certificate's IP entries; dates and signatures stay
		 * WinHTTP's */
		v = SECURITY_FLAG_IGNORE_UNKNOWN_CA |
		    SECURITY_FLAG_IGNORE_CERT_CN_INVALID;
		WinHttpSetOption(h->req, WINHTTP_OPTION_SECURITY_FLAGS, &v,
				 sizeof v);
	}
	if (q->from > 0) {
		snprintf(line, sizeof line, "Range: bytes=%llu-",
			 (unsigned long long)q->from);
		if (add_header(h->req, line) != 0)
			return net_error(err, "cannot download", url);
	}
	if (a->host[0] == L'\0') {
		/* the first hop: the host the credentials belong to */
		wcscpy(a->host, h->host);
		a->port = uc.nPort;
	}
	h->at_origin = a->port == uc.nPort && _wcsicmp(a->host, h->host) == 0;
	if (a->armed && h->at_origin && add_header(h->req, a->line) != 0)
		return net_error(err, "cannot download", url);
	if (q->accept != NULL) {
		snprintf(line, sizeof line, "Accept: %.400s", q->accept);
		if (add_header(h->req, line) != 0)
			return net_error(err, "cannot download", url);
	}
	if (!WinHttpSendRequest(h->req, WINHTTP_NO_ADDITIONAL_HEADERS, 0,
				WINHTTP_NO_REQUEST_DATA, 0, 0, 0) ||
	    !WinHttpReceiveResponse(h->req, NULL))
		return q->proxy ? proxy_error(err, url, q->proxy)
				: net_error(err, "cannot download", url);
	return verify_server(h->req, q->ca_file, h->host, url, err);
}

static long
status_of(HINTERNET req)
{
	DWORD code = 0, len = sizeof code;

	if (!WinHttpQueryHeaders(
		    req, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
		    WINHTTP_HEADER_NAME_BY_INDEX, &code, &len,
		    WINHTTP_NO_HEADER_INDEX))
		return 0;
	return (long)code;
}

/* A header's value, or NULL when it was not sent. */
static char *
header_of(HINTERNET req, DWORD which)
{
	DWORD len = 0;
	wchar_t *w;
	char *s;

	WinHttpQueryHeaders(req, which, WINHTTP_HEADER_NAME_BY_INDEX,
			    WINHTTP_NO_OUTPUT_BUFFER, &len,
			    WINHTTP_NO_HEADER_INDEX);
	if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || len == 0)
		return NULL;
	w = xmalloc(len + sizeof *w);
	if (!WinHttpQueryHeaders(req, which, WINHTTP_HEADER_NAME_BY_INDEX, w,
				 &len, WINHTTP_NO_HEADER_INDEX)) {
		free(w);
		return NULL;
	}
	s = narrow(w);
	free(w);
	return s;
}

/* Where a 3xx answer points, as an absolute https URL; NULL (with err)
 * when it points nowhere, or anywhere but https. */
static char *
next_url(const struct hop *h, const char *url, struct cv_err *err)
{
	char *loc = header_of(h->req, WINHTTP_QUERY_LOCATION), *abs, *to;
	const char *slash;

	if (loc == NULL) {
		failed(CV_TF_OTHER, 0, "a redirect names no Location");
		cv_err_set(err, CV_ENETWORK,
			   "a redirect from %s names no Location", h->shown);
		return NULL;
	}
	if (loc[0] == '/' && loc[1] != '/') {
		/* host-relative: keep this URL's scheme, host and port */
		slash = strchr(url + strlen("https://"), '/');
		abs = xasprintf(
			"%.*s%s",
			(int)(slash ? (size_t)(slash - url) : strlen(url)), url,
			loc);
		free(loc);
		return abs;
	}
	if (_strnicmp(loc, "https://", 8) == 0)
		return loc;
	to = cv_url_redact(loc);
	failed(CV_TF_INSECURE, 0, "to %.200s", to);
	cv_err_set(err, CV_ENETWORK,
		   "refused an insecure redirect from %s (only https is "
		   "allowed): to %.200s",
		   h->shown, to);
	free(to);
	free(loc);
	return NULL;
}

/* ---- the body ---- */

static int
read_body(const struct hop *h, const struct cv_transport_req *q,
	  struct cv_transport_resp *resp, struct cv_err *err)
{
	char *buf = xmalloc(BODY_BLOCK);
	DWORD n = 0;
	int rc = 0;

	for (;;) {
		if (!WinHttpReadData(h->req, buf, BODY_BLOCK, &n)) {
			rc = net_error(err, "cannot download", h->shown);
			break;
		}
		if (n == 0)
			break;
		if (q->stop != NULL && q->stop(q->stop_arg)) {
			failed(CV_TF_ABORTED, 0, "stopped");
			rc = cv_err_set(err, CV_EINTR, "interrupted");
			break;
		}
		if (q->max > 0 && resp->got + n > q->max) {
			failed(CV_TF_TOO_LARGE, 0, "larger than asked for");
			rc = cv_err_set(err, CV_EDATA,
					"%s is larger than the manifest says; "
					"refused",
					h->shown);
			break;
		}
		resp->got += n;
		if (q->sink != NULL &&
		    (rc = q->sink(q->arg, buf, n, err)) != 0) {
			failed(CV_TF_SINK, 0, "stopped by its reader");
			break;
		}
	}
	free(buf);
	return rc;
}

static HINTERNET
session_open(const struct cv_transport_req *q)
{
	wchar_t *proxy = NULL, *agent = widen("cudnnvm/" CV_VERSION_STRING);
	HINTERNET s;
	DWORD v;
	int ms = q->timeout > 0 ? (int)(q->timeout * 1000) : 30000;

	if (q->proxy != NULL)
		/* WinHTTP names a proxy host:port, without a scheme */
		proxy = widen(strncmp(q->proxy, "http://", 7) == 0
				      ? q->proxy + 7
				      : q->proxy);
	s = WinHttpOpen(agent,
			proxy ? WINHTTP_ACCESS_TYPE_NAMED_PROXY
			      : WINHTTP_ACCESS_TYPE_DEFAULT_PROXY,
			proxy ? proxy : WINHTTP_NO_PROXY_NAME,
			WINHTTP_NO_PROXY_BYPASS, 0);
	free(proxy);
	free(agent);
	if (s == NULL)
		return NULL;
	/* resolve, connect, send, and the longest wait for the next bytes */
	WinHttpSetTimeouts(s, ms, ms, ms, ms);
	v = WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_2 |
	    WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_3;
	if (!WinHttpSetOption(s, WINHTTP_OPTION_SECURE_PROTOCOLS, &v,
			      sizeof v)) {
		/* a Windows without TLS 1.3 in WinHTTP takes 1.2 alone */
		v = WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_2;
		WinHttpSetOption(s, WINHTTP_OPTION_SECURE_PROTOCOLS, &v,
				 sizeof v);
	}
	return s;
}

int
cv_transport_get(const struct cv_transport_req *q,
		 struct cv_transport_resp *resp, struct cv_err *err)
{
	struct hop h = { 0 };
	struct auth a = { 0 };
	char *url = xstrdup(q->url), *next, *len;
	HINTERNET s;
	int rc;

	memset(resp, 0, sizeof *resp);
	resp->length = -1;
	cur = resp;
	if (_strnicmp(url, "https://", 8) != 0) {
		failed(CV_TF_INSECURE, 0, "only https is allowed");
		cur = NULL;
		next = cv_url_redact(url);
		rc = cv_err_set(err, CV_ENETWORK,
				"refused %s: only https is allowed", next);
		free(next);
		free(url);
		return rc;
	}
	if ((s = session_open(q)) == NULL) {
		rc = net_error(err, "cannot start WinHTTP for", url);
		cur = NULL;
		free(url);
		return rc;
	}
	a.line = basic_line(url);
	for (;;) {
		if ((rc = hop_open(s, &h, &a, url, q, err)) != 0)
			goto out;
		resp->status = status_of(h.req);
		if (resp->status == 401 && a.line != NULL && !a.armed &&
		    h.at_origin) {
			/* this server's certificate passed: ask again, now
			 * with the credentials */
			a.armed = 1;
			hop_close(&h);
			continue;
		}
		if (resp->status < 300 || resp->status >= 400 ||
		    resp->status == 304)
			break;
		if (resp->redirects == MAX_REDIRECTS) {
			failed(CV_TF_REDIRECTS, 0, "more than %d redirects",
			       MAX_REDIRECTS);
			rc = cv_err_set(err, CV_ENETWORK,
					"too many redirects for %s", h.shown);
			goto out;
		}
		if ((next = next_url(&h, url, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		hop_close(&h);
		free(url);
		url = next;
		resp->redirects++;
	}
	if (resp->status >= 400) {
		failed(CV_TF_HTTP, resp->status >= 500, "HTTP %ld",
		       resp->status);
		rc = cv_err_set(err, CV_ENETWORK,
				"HTTP %ld for %s; check the version and the "
				"mirror",
				resp->status, h.shown);
		goto out;
	}
	if ((len = header_of(h.req, WINHTTP_QUERY_CONTENT_LENGTH)) != NULL) {
		resp->length = strtoll(len, NULL, 10);
		free(len);
	}
	if ((len = header_of(h.req, WINHTTP_QUERY_CONTENT_TYPE)) != NULL) {
		snprintf(resp->content_type, sizeof resp->content_type, "%s",
			 len);
		free(len);
	}
	if (q->from > 0 && resp->status != 206) {
		/* all of it, not the range asked for */
		failed(CV_TF_RANGE, 0, "the server ignored the range");
		rc = cv_err_set(err, CV_ENETWORK,
				"%s sent all of it, not bytes %llu on; "
				"refused",
				h.shown, (unsigned long long)q->from);
	} else if (q->max > 0 && resp->length > 0 &&
		   (uint64_t)resp->length > q->max) {
		failed(CV_TF_TOO_LARGE, 0, "larger than asked for");
		rc = cv_err_set(err, CV_EDATA,
				"%s is larger than the manifest says; refused",
				h.shown);
	} else if (!q->head && (rc = read_body(&h, q, resp, err)) == 0 &&
		   resp->length >= 0 && resp->got != (uint64_t)resp->length) {
		/* the connection closed before Content-Length: WinHTTP
		 * reads that as the end of the body */
		failed(CV_TF_CUT, 1, "the transfer ended early");
		rc = cv_err_set(err, CV_ENETWORK,
				"the transfer of %s ended after %llu of %lld "
				"bytes; run the same command again to resume",
				h.shown, (unsigned long long)resp->got,
				(long long)resp->length);
	}
out:
	if (rc != 0 && resp->fail == CV_TF_NONE)
		failed(CV_TF_OTHER, 0, "%s", err->msg);
	cur = NULL;
	hop_close(&h);
	WinHttpCloseHandle(s);
	if (a.line != NULL)
		SecureZeroMemory(a.line, strlen(a.line));
	free(a.line);
	free(url);
	return rc;
}

/* One after the other: WinHTTP's session keeps no connection between
 * calls here, and a Windows listing is the rare case. */
void
cv_transport_get_many(const struct cv_transport_req *reqs, size_t n,
		      struct cv_transport_resp *resps, struct cv_err *errs)
{
	for (size_t i = 0; i < n; i++)
		cv_transport_get(&reqs[i], &resps[i], &errs[i]);
}

/* Windows' own resolver of a relative reference (shlwapi). */
char *
cv_url_resolve(const char *base, const char *ref)
{
	wchar_t *wb = widen(base), *wr = widen(ref), out[4096];
	DWORD n = sizeof out / sizeof *out;
	char *r = NULL;

	if (wb != NULL && wr != NULL &&
	    UrlCombineW(wb, wr, out, &n, URL_ESCAPE_UNSAFE) == S_OK)
		r = narrow(out);
	free(wb);
	free(wr);
	return r;
}
