# Run by perf, not by the tests: `perf script -s perf_dump.py OUT.jsonl` writes every sample perf delivers as one
# JSON object per line, in perf's order, for the oracle tests (oracle.perf_dump):
#   {"event", "time", "cpu", "pid", "tid", "comm", "fields": {...} (tracepoints only), "stack": [[ip, sym, dso]...],
#    "ip", "sym", "dso" (the sample's own ip, and where perf puts it: what perf script prints without a callchain)}
# Tracepoint fields are those perf's python binding hands by name, without the common_* ones perf adds; a char
# array perf does not take for a string comes as a bytearray and is written as {"bytes": HEX}. Stack entries are
# innermost first; sym and dso are null where perf does not know them.
import json
import sys

out = None


def trace_begin():
    global out
    out = open(sys.argv[1], 'w', encoding='utf-8')


def trace_end():
    out.close()


def _value(v):
    if isinstance(v, (bytes, bytearray)):
        return {'bytes': bytes(v).hex()}
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    return v


def _stack(callchain):
    return [[node['ip'], node['sym']['name'] if node.get('sym') else None, node.get('dso')]
            for node in callchain or ()]


def _write(sample_dict, fields):
    s = sample_dict['sample']
    ev = {'event': sample_dict['ev_name'], 'time': s['time'], 'cpu': s['cpu'], 'pid': s['pid'], 'tid': s['tid'],
          'comm': sample_dict.get('comm'), 'stack': _stack(sample_dict.get('callchain')),
          'ip': s.get('ip'), 'sym': sample_dict.get('symbol'), 'dso': sample_dict.get('dso')}
    if fields is not None:
        ev['fields'] = {k: _value(v) for k, v in fields.items() if not k.startswith('common_')}
    out.write(json.dumps(ev) + '\n')


def trace_unhandled(event_name, context, fields, sample_dict):
    _write(sample_dict, fields)


def process_event(sample_dict):
    _write(sample_dict, None)
