/* vk_validation.c - XPB_VULKAN_VALIDATION=1: the Khronos validation layer's messages fail tests.
 *
 * The debug messenger prints every WARNING or ERROR message to stderr and records the first one;
 * the next backend call that returns a status (launch, synchronize, timer_end, download, open)
 * returns XPB_ERR_RUNTIME "Vulkan validation: <first message>" (vk_internal.h).
 * XPB_VULKAN_VALIDATION=sync also turns on the layer's synchronization validation (missing or
 * wrong barriers), which is slower. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"
#include "xpb_knob.h"

bool vkb_validation_requested(void)
{
    /* 0, 1 or sync; checked when a device opens (vk_device.c) */
    return xpb_knob_choice_or_default(XPB_KNOB_VULKAN_VALIDATION) != 0;
}

bool vkb_validation_sync_requested(void)
{
    return xpb_knob_choice_or_default(XPB_KNOB_VULKAN_VALIDATION) == 2;
}

bool vkb_validation_in_env_layers(void)
{
    const char *v = getenv("VK_INSTANCE_LAYERS");
    return v && strstr(v, "VK_LAYER_KHRONOS_validation") != NULL;
}

uint32_t vkb_validation_layer_spec(void)
{
    if (!vkb_validation_requested() && !vkb_validation_in_env_layers())
        return 0;
    uint32_t n = 0, spec = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return 0;
    VkLayerProperties *p = calloc(n, sizeof *p);
    if (p && vkEnumerateInstanceLayerProperties(&n, p) >= VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(p[i].layerName, "VK_LAYER_KHRONOS_validation") == 0)
                spec = p[i].specVersion;
    free(p);
    return spec;
}

static const char *severity_name(VkDebugUtilsMessageSeverityFlagBitsEXT s)
{
    if (s & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
        return "ERROR";
    if (s & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
        return "WARNING";
    return "INFO";
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)types;
    vkb_validation *rec = user;
    if (!(severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
        return VK_FALSE;
    const char *msg = data && data->pMessage ? data->pMessage : "(no message)";
    const char *id = data && data->pMessageIdName ? data->pMessageIdName : NULL;
    /* The loader's own notes (e.g. "env var 'VK_INSTANCE_LAYERS' defined and adding layers")
     * come through the messenger as warnings too: shown, but they fail nothing. */
    if (id && strcmp(id, "Loader Message") == 0 &&
        !(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        fprintf(stderr, "xpubench: Vulkan loader: %s\n", msg);
        return VK_FALSE;
    }
    fprintf(stderr, "xpubench: Vulkan validation %s: %s\n", severity_name(severity), msg);
    if (rec->count == rec->reported) {
        /* The layer's text is "Validation Error: [ VUID ] Object 0: ... | MessageID = ... | what";
         * keep "VUID: what" for the one-line error, the whole message is on stderr. */
        const char *what = strrchr(msg, '|');
        what = what ? what + 1 : msg;
        while (*what == ' ')
            what++;
        if (id && *id)
            snprintf(rec->first, sizeof rec->first, "%s: %s", id, what);
        else
            snprintf(rec->first, sizeof rec->first, "%s", what);
    }
    rec->count++;
    return VK_FALSE; /* never abort the call that triggered it */
}

void vkb_validation_messenger_info(vkb_validation *rec, VkDebugUtilsMessengerCreateInfoEXT *info)
{
    memset(info, 0, sizeof *info);
    info->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    info->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info->pfnUserCallback = on_message;
    info->pUserData = rec;
}

xpb_status vkb_validation_check(vkb_validation *rec, xpb_error *err)
{
    if (rec->count == rec->reported)
        return XPB_OK;
    unsigned more = rec->count - rec->reported - 1;
    rec->reported = rec->count;
    if (more)
        return xpb_fail(err, XPB_ERR_RUNTIME, "Vulkan validation: %s (and %u more, see stderr)",
                        rec->first, more);
    return xpb_fail(err, XPB_ERR_RUNTIME, "Vulkan validation: %s", rec->first);
}
