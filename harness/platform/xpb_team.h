/* xpb_team.h - a team of host threads started once and given job after job: member 0 is the
 * caller, members 1..n-1 wait for the next job between jobs. A device group driven from one
 * process with one host thread a GPU (nccl-tests' -t; XPB_CUDA_SHARDED_LAUNCH=threads) hands each
 * sample's launches to its team instead of starting threads for every sample: starting three
 * threads cost tens of microseconds between the ranks' first launches, inside every rank's timed
 * interval (docs/multi-gpu.md).
 *
 * Waiting: a member spins for up to spin_us microseconds after its last job (samples come back to
 * back, and waking a sleeping thread costs microseconds), then sleeps on a condition variable;
 * the caller waits for the others the same way. */
#ifndef XPB_TEAM_H
#define XPB_TEAM_H

#include "xpb_status.h"

typedef struct xpb_team xpb_team;

/* A member's part of a job: member in [0, n). Its error, if any, goes to err. */
typedef xpb_status (*xpb_team_fn)(void *user, int member, xpb_error *err);

/* Starts members 1..n-1 (n in [1, 64]); spin_us: how long a waiting thread polls before it sleeps
 * (0: sleeps at once). */
xpb_status xpb_team_open(int n, unsigned spin_us, xpb_team **out, xpb_error *err);

/* Runs fn(user, m, ...) on every member m, member 0 on the calling thread, and returns when all
 * are done: XPB_OK, or the status and error of the lowest member that failed. One job at a time
 * (a team is not shared between threads that call it at once). */
xpb_status xpb_team_run(xpb_team *t, xpb_team_fn fn, void *user, xpb_error *err);

int xpb_team_size(const xpb_team *t);

/* Stops and joins the members (none may be inside a job); NULL is allowed. */
void xpb_team_close(xpb_team *t);

#endif
