/* A plugin from a future, incompatible ABI: a host must refuse it from its version alone,
   before calling anything in its table (which is empty). */
#include "kiln/plugin.h"

static const KilnPluginApi table = {
    .struct_size = sizeof(KilnPluginApi), .major_version = KILN_PLUGIN_API_MAJOR + 1, .minor_version = 0};

const KilnPluginApi* kiln_plugin_api(void) { return &table; }
