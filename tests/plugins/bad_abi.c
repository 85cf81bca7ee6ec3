/* bad_abi.c - a plugin built for another plugin ABI version: xpubench must refuse it (exit 2) with
 * one line naming both versions, and it must not be asked to fill anything. */
#include <xpubench/xpubench_plugin.h>

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    (void)abi_version;
    (void)out;
    return XPB_PLUGIN_ABI_VERSION + 1;
}
