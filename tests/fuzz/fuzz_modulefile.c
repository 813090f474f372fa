/* fuzz_modulefile.c: the module-file writer (cv_modulefile_render) on
 * hostile ids, platforms and variables, its output loaded by real Tcl and
 * Lua interpreters.
 *
 * Input: byte 0 picks the format, byte 1 the CUDA major, then NUL-separated
 * fields: id, platform, and up to 8 name/value pairs. The oracle evaluates
 * each file the writer accepts in a sandbox: a Tcl interpreter with every
 * command deleted but if, set and info, and a bare Lua state whose globals
 * raise on any name it does not define; in both, module-whatis/whatis,
 * proc (Tcl's help) and help, family (Lua's), conflict,
 * prepend-path/prepend_path, pushenv and setenv only record
 * their arguments. The records must be exactly the calls the file is meant
 * to make, with every value byte for byte what was passed in: no value
 * escapes its quoting and nothing else runs. A refusal must be CV_EDATA on
 * one line, and plain values (letters, digits, / . _ -) are never refused. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "fuzz.h"

#include <lauxlib.h>
#include <lua.h>
#include <tcl.h>

#define MAX_PAIRS 8

static struct cv_buf rec = CV_BUF_INIT; /* "cmd\037arg\037arg\036"... */
static Tcl_Interp *tcl;

static void
record(const char *cmd, const char *const *args, const size_t *lens, int n)
{
	cv_buf_adds(&rec, cmd);
	for (int i = 0; i < n; i++) {
		cv_buf_add(&rec, "\037", 1);
		cv_buf_add(&rec, args[i], lens[i]);
	}
	cv_buf_add(&rec, "\036", 1);
}

/* ---- Tcl --------------------------------------------------------------- */

static int
tcl_record(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
	const char *args[8];
	size_t lens[8];

	(void)interp;
	if (objc - 1 > 8)
		abort();
	for (int i = 1; i < objc; i++) {
		int len;
		args[i - 1] = Tcl_GetStringFromObj(objv[i], &len);
		lens[i - 1] = (size_t)len;
	}
	record((const char *)cd, args, lens, objc - 1);
	return TCL_OK;
}

static const char *const tcl_cmds[] = {
	"module-whatis", "proc",   "conflict", "prepend-path",
	"pushenv",       "setenv", NULL
};

/* How often the file ran `set` and `if`: once each (the choice of
 * setenv or pushenv), so a value that escaped into one shows. */
static int tcl_sets, tcl_ifs;

static int
tcl_trace(ClientData cd, Tcl_Interp *interp, int level, const char *command,
	  Tcl_Command token, int objc, Tcl_Obj *const objv[])
{
	const char *name = Tcl_GetString(objv[0]);

	(void)cd, (void)interp, (void)level, (void)command, (void)token;
	(void)objc;
	tcl_sets += strcmp(name, "set") == 0;
	tcl_ifs += strcmp(name, "if") == 0;
	return TCL_OK;
}

static void
tcl_sandbox(void)
{
	static const char *const keep[] = { "if", "set", "info", NULL };
	Tcl_Obj *list;
	Tcl_Obj **names;
	int n;

	tcl = Tcl_CreateInterp();
	if (Tcl_Eval(tcl, "info commands") != TCL_OK)
		abort();
	list = Tcl_DuplicateObj(Tcl_GetObjResult(tcl));
	Tcl_IncrRefCount(list);
	if (Tcl_ListObjGetElements(tcl, list, &n, &names) != TCL_OK)
		abort();
	for (int i = 0; i < n; i++) {
		const char *c = Tcl_GetString(names[i]);
		int kept = 0;
		for (int k = 0; keep[k] && !kept; k++)
			kept = strcmp(c, keep[k]) == 0;
		if (!kept)
			Tcl_DeleteCommand(tcl, c);
	}
	Tcl_DecrRefCount(list);
	for (int i = 0; tcl_cmds[i]; i++)
		Tcl_CreateObjCommand(tcl, tcl_cmds[i], tcl_record,
				     (ClientData)tcl_cmds[i], NULL);
	/* no inline compilation, so that every command is seen */
	Tcl_CreateObjTrace(tcl, 0, 0, tcl_trace, NULL, NULL);
}

static void
tcl_load(const char *text, size_t len)
{
	/* each file alone: what one set stays set for the next otherwise */
	Tcl_UnsetVar(tcl, "cudnnvm_scalar", TCL_GLOBAL_ONLY);
	tcl_sets = tcl_ifs = 0;
	if (Tcl_EvalEx(tcl, text, (int)len, TCL_EVAL_GLOBAL) != TCL_OK)
		FUZZ_CHECK(0, "Tcl refused the file: %s\n%s",
			   Tcl_GetStringResult(tcl), text);
	FUZZ_CHECK(tcl_sets == 1 && tcl_ifs == 1,
		   "Tcl ran set %d times and if %d times:\n%s", tcl_sets,
		   tcl_ifs, text);
}

/* ---- Lua --------------------------------------------------------------- */

static int
lua_record(lua_State *L)
{
	const char *args[8];
	size_t lens[8];
	int n = lua_gettop(L);

	if (n > 8)
		return luaL_error(L, "too many arguments");
	for (int i = 1; i <= n; i++) {
		if (lua_type(L, i) != LUA_TSTRING)
			return luaL_error(L, "argument %d is not a string", i);
		args[i - 1] = lua_tolstring(L, i, &lens[i - 1]);
	}
	record(lua_tostring(L, lua_upvalueindex(1)), args, lens, n);
	return 0;
}

static int
lua_no_global(lua_State *L)
{
	return luaL_error(L, "global '%s' is not the writer's",
			  lua_tostring(L, 2));
}

static void
lua_load_text(const char *text, size_t len)
{
	static const char *const cmds[] = { "whatis",       "help",
					    "family",       "conflict",
					    "prepend_path", "pushenv",
					    "setenv",       NULL };
	lua_State *L = luaL_newstate();

	if (L == NULL)
		abort();
	for (int i = 0; cmds[i]; i++) {
		lua_pushstring(L, cmds[i]);
		lua_pushcclosure(L, lua_record, 1);
		lua_setglobal(L, cmds[i]);
	}
	/* any other global read or written is an escape */
	lua_pushglobaltable(L);
	lua_newtable(L);
	lua_pushcfunction(L, lua_no_global);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, lua_no_global);
	lua_setfield(L, -2, "__newindex");
	lua_setmetatable(L, -2);
	lua_pop(L, 1);
	if (luaL_loadbufferx(L, text, len, "=modulefile", "t") != LUA_OK ||
	    lua_pcall(L, 0, 0, 0) != LUA_OK)
		FUZZ_CHECK(0, "Lua refused the file: %s\n%s",
			   lua_tostring(L, -1), text);
	lua_close(L);
}

/* ---- the expected calls ---------------------------------------------- */

static int
is_list(const char *name)
{
	return strcmp(name, "LD_LIBRARY_PATH") == 0 ||
	       strcmp(name, "CPATH") == 0 ||
	       strcmp(name, "LIBRARY_PATH") == 0 || strcmp(name, "PATH") == 0;
}

static void
expect(struct cv_buf *b, int lua, const char *id, int cuda,
       const char *platform, const struct cv_env *env)
{
	char *whatis =
		xasprintf("cuDNN %s (CUDA %d, %s) from the cudnnvm store", id,
			  cuda, platform);

	char *help = xasprintf(CV_MODULE_HELP, id);

	cv_buf_addf(b, "%s\037%s\036", lua ? "whatis" : "module-whatis",
		    whatis);
	/* Lua's long string drops its first newline; Tcl's proc is only
	 * defined, its body never run */
	if (lua)
		cv_buf_addf(b, "help\037%s\036family\037cudnn\036", help);
	else
		cv_buf_addf(b,
			    "proc\037ModulesHelp\037\037\n    puts stderr "
			    "{%s}\n\036",
			    help);
	free(help);
	cv_buf_addf(b, "conflict\037cudnn\036");
	for (size_t i = 0; i < env->n; i++) {
		const char *name = env->v[i].name, *value = env->v[i].value;
		if (value == NULL || strncmp(name, "CUDNNVM_SAVED_", 14) == 0)
			continue;
		cv_buf_addf(b, "%s\037%s\037%s\036",
			    is_list(name)
				    ? (lua ? "prepend_path" : "prepend-path")
				    : "pushenv",
			    name, value);
	}
	cv_buf_addf(b, "pushenv\037CUDNNVM_VERSION\037%s\036", id);
	cv_buf_addf(b, "pushenv\037CUDNNVM_MODULE\037cudnn/%s\036", id);
	free(whatis);
}

static int
plain_text(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789/._-") == strlen(s);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	Tcl_FindExecutable((*argv)[0]);
	(void)argc;
	tcl_sandbox();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cv_env_var vars[MAX_PAIRS];
	struct cv_env env = { vars, 0, MAX_PAIRS };
	struct cv_buf out = CV_BUF_INIT, want = CV_BUF_INIT;
	struct cv_err err = CV_ERR_INIT;
	char *s, *field[2 + 2 * MAX_PAIRS] = { 0 }, *p, *end;
	int lua, cuda, nf = 0, rc, plain;

	if (size < 2)
		return 0;
	lua = data[0] & 1;
	cuda = data[1];
	s = fuzz_cstr(data + 2, size - 2);
	/* NUL-separated fields; fuzz_cstr ended the last one */
	for (p = s, end = s + (size - 2); nf < 2 + 2 * MAX_PAIRS;) {
		field[nf++] = p;
		p += strlen(p);
		if (p >= end)
			break;
		p++;
	}
	for (int i = nf; i < 2 + 2 * MAX_PAIRS; i++)
		field[i] = (char *)"";
	plain = plain_text(field[0]) && plain_text(field[1]);
	for (int i = 2; i + 1 < nf; i += 2) {
		vars[env.n].name = field[i];
		vars[env.n++].value = field[i + 1];
		plain = plain && field[i][0] != '\0' &&
			strspn(field[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") ==
				strlen(field[i]) &&
			plain_text(field[i + 1]);
	}
	rc = cv_modulefile_render(&out, lua ? CV_MODFMT_LUA : CV_MODFMT_TCL,
				  field[0], cuda, field[1], &env, &err);
	fuzz_check_err(rc, &err);
	FUZZ_CHECK(rc == 0 || rc == CV_EDATA, "returned %d (%s)", rc, err.msg);
	FUZZ_CHECK(rc == 0 || !plain, "refused plain values: %s", err.msg);
	if (rc == 0) {
		cv_buf_reset(&rec);
		if (lua)
			lua_load_text(out.buf, out.len);
		else
			tcl_load(out.buf, out.len);
		expect(&want, lua, field[0], cuda, field[1], &env);
		FUZZ_CHECK(rec.len == want.len &&
				   memcmp(rec.buf, want.buf, want.len) == 0,
			   "the file made other calls than meant:\n%s\n",
			   out.buf);
	}
	cv_buf_release(&out);
	cv_buf_release(&want);
	free(s);
	return 0;
}
