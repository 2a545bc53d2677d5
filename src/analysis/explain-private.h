/* Shared by the explanation's two files (explain.c: the work, the numbers and the sentences; explain-chain.c: the
 * chain under the longest wait). */
#ifndef RSP_EXPLAIN_PRIVATE_H
#define RSP_EXPLAIN_PRIVATE_H

#include "analysis.h"

/* Fills X's chain (x->chain, x->n_chain) from P's paths. */
void rsp_explain_chain(const rsp_paths *p, rsp_explanation *x);
/* BY's values (rsp_explain_work), the most running time first (then by pid): the first MAX copied to OUT; returns how
 * many there are. */
uint32_t rsp_explain_top_work(GHashTable *by, rsp_explain_work *out, uint32_t max);

#endif
