#!/usr/bin/env bash
# The paper's protocol on a GPU node: serve the reader (and optionally a large answer judge) with
# vLLM's OpenAI-compatible server, then run LTP (all 10 profiles, 800 probes) and LoCoMo (all 10
# samples, 1,986 questions), host alone and host + overlay, for each host, fanned out on Ray.
#
#   bash scripts/gpu_node.sh                   # everything, defaults below
#   HOSTS="builtin amem" GPUS=2 bash scripts/gpu_node.sh
#   DRY_RUN=1 bash scripts/gpu_node.sh         # print the commands only
#
# Needs: `pip install 'atma[gpu,all]'` (vllm, bitsandbytes) and the reader's weights in the HF
# cache or at $READER (no download happens here when HF_HUB_OFFLINE=1). On a machine without vLLM
# (CPU, tests) set SERVER=atma: `python -m atma.llm.serve` serves any atma spec with the same API.
set -euo pipefail
cd "$(dirname "$0")/.."
READER=${READER:-Qwen/Qwen2.5-3B-Instruct}        # the paper's reader
JUDGE=${JUDGE:-}                                   # optional answer judge, e.g. Qwen/Qwen2.5-32B-Instruct-AWQ
GPUS=${GPUS:-1}                                    # one reader endpoint per GPU
BASE_PORT=${BASE_PORT:-8000}
HOSTS=${HOSTS:-builtin amem insideout graphiti}
OUT=${OUT:-runs/gpu}
SERVER=${SERVER:-vllm}                             # vllm | atma
PROFILES=${PROFILES:-0,1,2,3,4,5,6,7,8,9}
SAMPLES=${SAMPLES:-}                               # LoCoMo sample ids; empty: all 10
LOCOMO=${LOCOMO:-1}                                # 0: LTP only
read -r -a EXTRA <<< "${EVAL_ARGS:-}"              # more eval flags, e.g. "--units 2" for a smoke run
run() { echo "+ $*" >&2; [ -n "${DRY_RUN:-}" ] || "$@"; }

pids=()
cleanup() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

endpoints=()
for ((g = 0; g < GPUS; g++)); do
  port=$((BASE_PORT + g))
  if [ "$SERVER" = vllm ]; then
    cmd=(env CUDA_VISIBLE_DEVICES=$g python3 -m vllm.entrypoints.openai.api_server --model "$READER"
         --served-model-name reader --host 127.0.0.1 --port "$port" --max-model-len 8192 --seed 0)
  else
    cmd=(python3 -m atma.llm.serve --llm "$READER" --model reader --host 127.0.0.1 --port "$port")
  fi
  echo "+ ${cmd[*]} &" >&2
  if [ -z "${DRY_RUN:-}" ]; then mkdir -p "$(dirname "$OUT")"; "${cmd[@]}" > "$OUT.server$g.log" 2>&1 & pids+=($!); fi
  endpoints+=("openai:http://127.0.0.1:$port/v1#reader")
done
judge_args=()
if [ -n "$JUDGE" ]; then
  jport=$((BASE_PORT + GPUS))
  run_judge=(python3 -m vllm.entrypoints.openai.api_server --model "$JUDGE" --served-model-name judge
             --host 127.0.0.1 --port "$jport" --max-model-len 8192)
  echo "+ ${run_judge[*]} &" >&2
  if [ -z "${DRY_RUN:-}" ]; then "${run_judge[@]}" > "$OUT.judge.log" 2>&1 & pids+=($!); fi
  judge_args=(--judge-llm "openai:http://127.0.0.1:$jport/v1#judge")
fi

if [ -z "${DRY_RUN:-}" ]; then  # wait until every endpoint answers /v1/models (model load takes minutes)
  for ((g = 0; g < GPUS; g++)); do
    for _ in $(seq 1 600); do
      python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)" \
        "http://127.0.0.1:$((BASE_PORT + g))/v1/models" 2> /dev/null && break
      sleep 2
    done
  done
fi

list=$(IFS=,; echo "${endpoints[*]}")
fan=()  # one endpoint: no fan-out; several: one Ray task per endpoint at a time
[ "$GPUS" -gt 1 ] && fan=(--workers "$GPUS" --llm-endpoints "$list")
urls=$(IFS=,; echo "${endpoints[*]}" | sed 's/openai://g; s/#reader//g')
for host in $HOSTS; do
  run python3 -m atma eval ltp --profiles "$PROFILES" --host "$host" --overlay both --llm "${endpoints[0]}" \
      ${fan[@]+"${fan[@]}"} ${judge_args[@]+"${judge_args[@]}"} ${EXTRA[@]+"${EXTRA[@]}"} \
      --out "$OUT/ltp-$host"
  [ "$LOCOMO" = 1 ] || continue
  run python3 -m atma eval locomo ${SAMPLES:+--samples "$SAMPLES"} --host "$host" --overlay both \
      --llm "${endpoints[0]}" ${fan[@]+"${fan[@]}"} ${judge_args[@]+"${judge_args[@]}"} \
      ${EXTRA[@]+"${EXTRA[@]}"} --out "$OUT/locomo-$host"
done
echo "reports: $OUT/*/report.md (endpoints: $urls)" >&2
