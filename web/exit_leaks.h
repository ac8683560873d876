/*
 * exit_leaks.h - GET /api/v1/exit-leaks (web/exit_leaks.c): the exit leak
 * reports stored per process run (storage/exit_reports.h).
 */
#ifndef MW_WEB_EXIT_LEAKS_H
#define MW_WEB_EXIT_LEAKS_H

struct mw_req;
struct MHD_Response;

struct MHD_Response *mw_h_exit_leaks(struct mw_req *r);

#endif
