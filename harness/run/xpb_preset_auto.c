/* xpb_preset_auto.c - see xpb_preset_auto.h. */
#include "xpb_preset_auto.h"

#include <stdio.h>
#include <string.h>

#include "xpb_backend.h"

bool xpb_machine_has_hardware_gpu(void)
{
    for (const xpb_backend_i *const *b = xpb_backends(); *b; b++) {
        xpb_error why = {{0}};
        if (strcmp((*b)->name, "cpu") == 0 || !(*b)->probe(&why))
            continue;
        for (int i = 0; i < (*b)->device_count(); i++) {
            xpb_device_info info;
            memset(&info, 0, sizeof info);
            if ((*b)->device_info(i, &info, &why) == XPB_OK && info.is_gpu && !info.is_software)
                return true;
        }
    }
    return false;
}

/* Why device d runs the short suite, or NULL when it runs the full one. */
static const char *short_reason(const xpb_device *d, bool hardware_gpu)
{
    if (d->info.is_software)
        return "a software device";
    if (strcmp(d->backend->name, "cpu") == 0 && !hardware_gpu)
        return "no GPU on this machine";
    return NULL;
}

void xpb_preset_auto_assign(xpb_run *run, bool hardware_gpu)
{
    char which[320] = "";
    size_t used = 0;
    for (size_t i = 0; i < run->n_devices; i++) {
        xpb_device *d = &run->devices[i];
        const char *why = short_reason(d, hardware_gpu);
        d->preset = why ? XPB_PRESET_SHORT : XPB_PRESET_FULL_SUITE;
        if (why && used < sizeof which)
            used += (size_t)snprintf(which + used, sizeof which - used, "%s%s (%.60s: %s)", used ? ", " : "",
                                     d->label, d->info.name, why);
    }
    run->preset_note[0] = 0;
    if (used)
        snprintf(run->preset_note, sizeof run->preset_note,
                 "preset auto: %s run the %s preset, which finishes in minutes; the full %s suite there: "
                 "xpubench run --preset %s",
                 which, XPB_PRESET_SHORT, XPB_PRESET_FULL_SUITE, XPB_PRESET_FULL_SUITE);
}
