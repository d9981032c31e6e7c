/* PJRT's shardings extension (PJRT_Extension_Type_Shardings, version 1), declared by kiln
   from the published layout of openxla/xla xla/pjrt/c/pjrt_c_api_shardings_extension.h:
   an executable's parameter and output shardings, each a serialized xla.OpSharding. A
   framework asks for them to learn how the outputs of a partitioned program are laid out
   (jaxlib 0.10.2 does, for every jit over several devices). Plain C11. */
#ifndef KILN_PJRT_SHARDINGS_EXTENSION_H
#define KILN_PJRT_SHARDINGS_EXTENSION_H

#include "kiln/pjrt/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_SHARDINGS_EXTENSION_VERSION 1

/* Both calls: the executable's shardings, owned by it; `shardings` and `sharding_sizes`
   null when it has none to report (a program that was not partitioned). */
typedef struct PJRT_Shardings_PJRT_Executable_ParameterShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;         /* out */
  const char* const* shardings;  /* out */
  const size_t* sharding_sizes;  /* out */
} PJRT_Shardings_PJRT_Executable_ParameterShardings_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, sharding_sizes);
typedef PJRT_Error* PJRT_Shardings_PJRT_Executable_ParameterShardings(
    PJRT_Shardings_PJRT_Executable_ParameterShardings_Args* args);

typedef struct PJRT_Shardings_PJRT_Executable_OutputShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;            /* out */
  const char* const* shardings;  /* out */
  const size_t* sharding_sizes;  /* out */
} PJRT_Shardings_PJRT_Executable_OutputShardings_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Shardings_PJRT_Executable_OutputShardings_Args, sharding_sizes);
typedef PJRT_Error* PJRT_Shardings_PJRT_Executable_OutputShardings(
    PJRT_Shardings_PJRT_Executable_OutputShardings_Args* args);

typedef struct PJRT_Shardings_Extension {
  PJRT_Extension_Base base;
  PJRT_Shardings_PJRT_Executable_ParameterShardings* PJRT_Shardings_PJRT_Executable_ParameterShardings;
  PJRT_Shardings_PJRT_Executable_OutputShardings* PJRT_Shardings_PJRT_Executable_OutputShardings;
} PJRT_Shardings_Extension;
KILN_PJRT_STRUCT_SIZE(PJRT_Shardings_Extension, PJRT_Shardings_PJRT_Executable_OutputShardings);

#ifdef __cplusplus
}
#endif

#endif /* KILN_PJRT_SHARDINGS_EXTENSION_H */
