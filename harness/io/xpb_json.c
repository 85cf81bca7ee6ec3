/* xpb_json.c - see xpb_json.h. */
#include "xpb_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "xpb_input.h"

void xpb_json_add_number(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

void xpb_json_add_params(cJSON *o, const xpb_case *c)
{
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; i < c->n_params; i++) {
        if (strcmp(c->params[i].key, XPB_INPUT_KEY) == 0)
            cJSON_AddStringToObject(p, c->params[i].key, xpb_input_name((xpb_input_class)c->params[i].value));
        else
            cJSON_AddNumberToObject(p, c->params[i].key, (double)c->params[i].value);
    }
}
