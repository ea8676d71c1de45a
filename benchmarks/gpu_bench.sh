#!/usr/bin/env bash
# The GPU table of issue 34 on one NVIDIA H200: benchmarks/bench_scoring.py --device cuda
# (bert-base and bert-large PLL, gpt2 and gpt2-medium logprob, a 1.1B causal model of
# TinyLlama's shape; random weights, real shapes) beside minicons 0.3.39 in the same run.
# Writes $OUT/gpu.csv, $OUT/gpu_agreement.csv and $OUT/bench.log (all it prints).
#
# It runs through the device tool (kind nvidia-h200), which copies this checkout but not
# ../shared, and the ignored folder named in `carry`. Prepare here, once (build/ is ignored,
# so nothing of it is committed):
#
#   1. The inputs: 16,000 distinct BLiMP sentences (seed 0) and the verdict check's 5
#      paradigms, as published (about 3 MB):
#        .venv/bin/python benchmarks/bench_scoring.py --write-inputs build/gpu-bench
#      -> build/gpu-bench/sentences.txt and build/gpu-bench/blimp/data/{anaphor_gender_agreement,
#         determiner_noun_agreement_2,regular_plural_subject_verb_agreement_1,
#         wh_vs_that_no_gap,npi_present_1}.jsonl
#   2. The wheels minicons needs beyond the image. The image has python 3.12, torch 2.11,
#      transformers 5.x, tokenizers 0.23, huggingface_hub 1.x, accelerate, numpy, pandas,
#      pillow, scipy, pyarrow, cloudpickle, tqdm (all our own run needs: it takes no wheel);
#      minicons 0.3.39 needs transformers<5, which needs huggingface_hub<1 and
#      tokenizers<=0.23.0, and wonderwords. The versions of /work/minicons-venv here (about
#      17 MB; they go to a site of minicons' own, never on our process's path):
#        python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#          --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
#          --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#          --platform manylinux1_x86_64 -d build/gpu-bench/wheels \
#          minicons==0.3.39 transformers==4.57.6 huggingface_hub==0.36.2 tokenizers==0.22.2 \
#          wonderwords==3.0.1
#   3. The run: the device tool's `run` with carry ["build/gpu-bench"], timeout_s 600 and
#      command `bash benchmarks/gpu_bench.sh`. Then copy gpu.csv and gpu_agreement.csv from
#      the returned files into docs/speed/ (the card is in column `card`).
#
# Time (an estimate from the issue's H100 rates, not a measurement; about 9 minutes at most):
# setup ~30 s (wheels, models drawn on the GPU and saved, ~8 GB); per model our runs (float32
# at 16,384 tokens a pass, bfloat16 at 16,384 and 65,536), minicons' (batch 128) in both
# dtypes, and the verdicts on 100 pairs x 5 paradigms (float32, bfloat16, bfloat16 + recheck,
# each loading the model again): gpt2 ~45 s, bert-base ~100 s, gpt2-medium ~55 s, the 1.1B model ~110 s
# on all 16,000 sentences; bert-large ~100 s on the first 8,000 (minicons' float32 PLL runs
# ~270 sent/s there: 60 s for 16,000). The first command starts no model after DEADLINE_A
# seconds; bert-large runs only with 150 s left of BUDGET; rows are written model by model,
# so a run cut short keeps what it finished.
#
# The environment overrides let it run anywhere (a CPU dry run with tiny models, e.g.
# DEVICE=cpu PY=.venv/bin/python MODELS_A="tiny-gpt2 tiny-bert" MODELS_B=tiny-llama N_A=40
# N_B=20 THREADS=1 MINICONS_SITE=<a site with minicons> IN=<inputs> OUT=/tmp/out).

set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
START=$SECONDS
IN=${IN:-build/gpu-bench}
OUT=${OUT:-/tmp/gpu-bench-out}
PY=${PY:-python3}
DEVICE=${DEVICE:-cuda}
BUDGET=${BUDGET:-540}  # seconds for the whole script
SITE=${MINICONS_SITE:-/tmp/minicons-site}
mkdir -p "$OUT"

left() { echo $((BUDGET - (SECONDS - START))); }

main() {
    # minicons' interpreter: this python over a site of its own (transformers 4)
    if [ ! -d "$SITE/minicons" ]; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target "$SITE" "$IN"/wheels/*.whl || echo "minicons' wheels not installed"
    fi
    local mc=/tmp/minicons-python
    printf '#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' "$SITE" "$(command -v "$PY")" > "$mc"
    chmod +x "$mc"
    "$mc" -c 'import minicons.scorer, transformers; print("minicons 0.3.39 with transformers", transformers.__version__)' \
        || { echo "minicons does not import: its columns stay blank"; mc=/nonexistent; }

    # this checkout as the package: pyproject maps data/ scoring/ stats/ reports/ into acceptability
    local pkg=/tmp/acceptability-pkg
    rm -rf "$pkg" && mkdir -p "$pkg/acceptability" && cp -r src/acceptability/. "$pkg/acceptability/"
    for d in data scoring stats reports; do ln -s "$PWD/$d" "$pkg/acceptability/$d"; done
    export PYTHONPATH="$pkg" PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
    "$PY" -c 'import acceptability.scoring, torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())' || return 1
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>/dev/null

    local args=(--device "$DEVICE" --sentences "$IN/sentences.txt" --blimp-dir "$IN/blimp"
                --blimp-pairs "${PAIRS:-100}" --batch-size 128 --batch-tokens 16384 65536
                --fp32-batch-tokens 16384 --threads "${THREADS:-8}" --repeats 1
                --models-dir "${MODELS_DIR:-/tmp/bench-models}" --minicons-python "$mc" --out "$OUT")
    # shellcheck disable=SC2086  # the model lists split into words
    timeout $(($(left) - 20)) "$PY" benchmarks/bench_scoring.py "${args[@]}" ${N_A:+--n "$N_A"} \
        --models ${MODELS_A:-gpt2 bert-base gpt2-medium tinyllama} --deadline "${DEADLINE_A:-330}"
    echo "first part: exit $?, $(left) s left"
    if (($(left) > 150)); then
        # shellcheck disable=SC2086
        timeout $(($(left) - 10)) "$PY" benchmarks/bench_scoring.py "${args[@]}" --n "${N_B:-8000}" \
            --models ${MODELS_B:-bert-large} --append
        echo "second part: exit $?"
    else
        echo "${MODELS_B:-bert-large} skipped: $(left) s left"
    fi
    echo "done in $((SECONDS - START)) s"
    ls -l "$OUT"
}

main 2>&1 | tee "$OUT/bench.log"
