#!/usr/bin/env bash
# Workload 6 (the paper's MPlayer case): ffmpeg -re decoding a generated 3 s clip to the null muxer. The
# truth: ffmpeg's own threads decode (its CPU time), and -re paces reading to real time with nanosleeps
# (av_usleep), which must be "timed out"; nothing else is involved.
source "$(dirname "$0")/lib.sh"
real_install ffmpeg strace
D=$(real_outdir ffmpeg)
CLIP=/run/rsp-real-clip.mp4
[ -s $CLIP ] || ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc=size=640x360:rate=25 -f lavfi -i sine=frequency=440 \
  -t 3 -c:v libx264 -preset veryfast -c:a aac -shortest $CLIP
real_record "$D" ffmpeg -nostdin -loglevel error -re -threads 2 -i $CLIP -f null -
real_strace "$D" ffmpeg -nostdin -loglevel error -re -threads 2 -i $CLIP -f null -
real_truth "$D" "$(cat <<J
{"name": "ffmpeg",
 "design": "ffmpeg -re -threads 2 -i (3 s 640x360 h264+aac testsrc) -f null -: decoding paced to real time by nanosleeps",
 "workers": [{"label": "ffmpeg (all threads)", "comm": "^(ffmpeg|ffmpeg-.*|.*dec.*|.*enc.*|.*mux.*|.*filt.*)\$"}],
 "workers_are_client_tree": true,
 "related": "^(ffmpeg.*)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": 1000,
 "socket_waits": false,
 "senders": "^\$"}
J
)"
echo "ffmpeg: recorded in $D"
