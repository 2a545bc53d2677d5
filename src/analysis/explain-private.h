/* Shared by the explanation's two files (explain.c: the work, the numbers and the sentences; explain-chain.c: the
 * chain under the longest wait). */
#ifndef RSP_EXPLAIN_PRIVATE_H
#define RSP_EXPLAIN_PRIVATE_H

#include "analysis.h"

/* Fills X's chain (x->chain, x->n_chain) from P's paths. */
void rsp_explain_chain(const rsp_paths *p, rsp_explanation *x);
/* qsort order of rsp_explain_work: the most running time first, then by pid. */
int rsp_explain_by_run(const void *a, const void *b);

#endif
