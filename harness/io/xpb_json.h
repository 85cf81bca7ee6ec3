/* xpb_json.h - small cJSON helpers shared by the writers of results, comparisons and dumps. */
#ifndef XPB_JSON_H
#define XPB_JSON_H

#include "xpb_workload.h"

struct cJSON;
/* Adds v to a JSON object; a non-finite v (NaN, inf: JSON has none) becomes null. */
void xpb_json_add_number(struct cJSON *o, const char *key, double v);
/* Adds the object "params" of case c: numbers, and the input class by name ("input": "exact"). */
void xpb_json_add_params(struct cJSON *o, const xpb_case *c);

#endif
