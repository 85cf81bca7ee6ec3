/* xpb_cli_plugins.c - --kernels PATH for the commands that take it (run, list): a plugin library
 * loaded (harness/plugin/), a failure one line and exit 2 (docs/plugins.md). */
#include "xpb_cli.h"
#include "xpb_plugin.h"

int xpb_plugin_cli_load(const char *path)
{
    xpb_error err = {{0}};
    if (xpb_plugin_load(path, &err))
        return xpb_cli_error(XPB_EXIT_USAGE, "%s", err.msg);
    return XPB_EXIT_OK;
}
