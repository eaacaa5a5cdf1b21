/*
 * glibc's malloc_trim for the host (apps/host/src/memory.ts). glibc gives back only the top of its
 * heap when memory is freed; what closed panes freed in the middle stays resident until
 * malloc_trim hands those pages back. Node cannot call it, hence this Node-API module: its
 * export is the function itself, which trims and says whether anything went back.
 */
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#else
#error "malloc_trim is glibc's: this module is only built where the C library is glibc"
#endif

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  if (napi_get_boolean(env, malloc_trim(0) == 1, &released) != napi_ok) return NULL;
  return released;
}

NAPI_MODULE_INIT() {
  (void)exports;
  napi_value function;
  if (napi_create_function(env, "mallocTrim", NAPI_AUTO_LENGTH, trim, NULL, &function) != napi_ok) return NULL;
  return function;
}
