"""Rewrites the sampling event of a perf.data file (file mode) into another one, byte for byte elsewhere.

A recording made on this VM samples cpu-clock (PERF_TYPE_SOFTWARE, config 0); a machine with a PMU
samples cycles (PERF_TYPE_HARDWARE, config 0), instructions, a raw PMU event... The kernel writes the
same sample records for all of them: only the attr (in the attrs section and in the EVENT_DESC
feature) says which event it was. Rewriting the attr and its name gives the recording a user with a
PMU would have made, whose truth is the original's. Layouts: linux/perf_event.h and
tools/perf/util/header.c (perf_file_header, perf_file_attr, write_event_desc).
"""
import struct

HEADER_EVENT_DESC = 12


def _sections(data):
    magic, size, attr_size = struct.unpack_from('<8sQQ', data, 0)
    if magic != b'PERFILE2':
        raise ValueError('not a perf.data file in file mode')
    attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<QQQQ', data, 24)
    flags = struct.unpack_from('<4Q', data, 72)
    return size, attr_size, attrs_off, attrs_size, data_off + data_size, flags


def _feature_section(data, feature):
    size, _attr_size, _ao, _as, feat_off, flags = _sections(data)
    bits = int.from_bytes(struct.pack('<4Q', *flags), 'little')
    if not bits >> feature & 1:
        return None
    index = bin(bits & ((1 << feature) - 1)).count('1')
    return struct.unpack_from('<QQ', data, feat_off + 16 * index)


def retype(src, dst, old, new, new_name=None, period=None):
    """Copies SRC to DST with every attr of (type, config) OLD made NEW, and its EVENT_DESC name made
    NEW_NAME (which must fit the old name's padded length). PERIOD, when given, replaces
    sample_period/sample_freq (the freq bit is cleared: a fixed period). Returns how many attrs changed."""
    data = bytearray(open(src, 'rb').read())
    _size, attr_size, attrs_off, attrs_size, _feat, _flags = _sections(data)
    changed = 0

    def patch_attr(off):
        nonlocal changed
        t, _s, c = struct.unpack_from('<IIQ', data, off)
        if (t, c) != old:
            return False
        struct.pack_into('<I', data, off, new[0])
        struct.pack_into('<Q', data, off + 8, new[1])
        if period is not None:
            struct.pack_into('<Q', data, off + 16, period)
            bits, = struct.unpack_from('<Q', data, off + 40)
            struct.pack_into('<Q', data, off + 40, bits & ~(1 << 10))  # attr.freq is bit 10
        changed += 1
        return True

    for off in range(attrs_off, attrs_off + attrs_size, attr_size):
        patch_attr(off)
    sec = _feature_section(data, HEADER_EVENT_DESC)
    if sec:
        off, _len = sec
        nr, asz = struct.unpack_from('<II', data, off)
        p = off + 8
        for _ in range(nr):
            hit = patch_attr(p)
            p += asz
            nr_ids, = struct.unpack_from('<I', data, p)
            p += 4
            slen, = struct.unpack_from('<I', data, p)
            if hit and new_name is not None:
                raw = new_name.encode() + b'\0'
                if len(raw) > slen:
                    raise ValueError(f'{new_name!r} does not fit in {slen} bytes')
                data[p + 4:p + 4 + slen] = raw + b'\0' * (slen - len(raw))
            p += 4 + slen + 8 * nr_ids
    open(dst, 'wb').write(bytes(data))
    return changed
