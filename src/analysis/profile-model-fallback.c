/* Stand-ins for the model's stacks, links, disk and network accessors while the model does not
 * provide them yet (src/analysis/meson.build compiles this file only when src/model/ lacks the
 * files that define them): every such class of profile is then simply empty. */
#include "model/model.h"

#ifdef RSP_FALLBACK_STACKS
uint32_t rsp_model_n_stacks(const rsp_model *model) { return 0; }
const rsp_model_frame *rsp_model_stack_label(const rsp_model *model, rsp_stack_id stack) { return NULL; }
#endif
#ifdef RSP_FALLBACK_LINKS
uint32_t rsp_model_n_links(const rsp_model *model) { return 0; }
const rsp_link *rsp_model_link(const rsp_model *model, rsp_link_id id) { return NULL; }
#endif
#ifdef RSP_FALLBACK_DISK
uint32_t rsp_model_n_disk_ops(const rsp_model *model) { return 0; }
const rsp_disk_op *rsp_model_disk_op(const rsp_model *model, rsp_disk_op_id id) { return NULL; }
#endif
#ifdef RSP_FALLBACK_NETWORK
uint32_t rsp_model_n_net_ops(const rsp_model *model) { return 0; }
const rsp_net_op *rsp_model_net_op(const rsp_model *model, rsp_net_op_id id) { return NULL; }
#endif
