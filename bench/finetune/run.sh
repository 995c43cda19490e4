#!/usr/bin/env bash
# Published fine-tuning memory figures next to memopt's predictions for the
# same settings (bench/finetune/README.md gives every setting's source and
# explains each difference). For each row: mem-gen builds the training step
# (model, sequence, batch, LoRA rank/alpha/dropout/targets, precision,
# optimizer, 4-bit frozen weights), mem-opt makes it one micro-batch of the
# recipe's gradient accumulation (train-accumulate-gradients) and
# checkpoints every layer (train-remat algorithm=layers:
# what torchtune's enable_activation_checkpointing, HF's gradient
# checkpointing and Unsloth's use_gradient_checkpointing do) and writes the
# JSON memory report (docs/report.md). The table gives the predicted peak,
# the model states by kind, the activations saved for backward, the
# published number and the median wall time of mem-gen + mem-opt.
#
# Rows that need an option mem-gen does not have yet (--quantize-frozen=nf4,
# --optimizer=adamw8bit) print "not yet available"; rerun the script once it
# has them and the rows fill in.
#
#   bench/finetune/run.sh [build-dir]
#   REPEATS=5 bench/finetune/run.sh           # runs per row (default 3)
#   LOCK=/path/to/lockfile bench/finetune/run.sh   # hold a flock while measuring
#
# Writes bench/finetune/results.md (the table) and results.json (exact bytes
# per row; OUT_DIR=... to write elsewhere) and prints the table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$root/build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
if [ -n "${LOCK:-}" ] && [ -z "${FINETUNE_LOCKED:-}" ]; then
  export FINETUNE_LOCKED=1
  exec flock "$LOCK" "$0" "$BUILD"
fi
REPEATS=${REPEATS:-3}
OUT_DIR=${OUT_DIR:-$root/bench/finetune}
GEN="$BUILD/bin/mem-gen"
OPT="$BUILD/bin/mem-opt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What this mem-gen offers.
have_nf4=0; have_8bit=0
gen_help=$("$GEN" --help)
case "$gen_help" in *--quantize-frozen*nf4*) have_nf4=1 ;; esac
case "$gen_help" in *adamw8bit*) have_8bit=1 ;; esac

ALL7=q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj
# LLaMA-1 65B (huggyllama/llama-65b's config.json): no preset in mem-gen.
LLAMA65="llama --layers 80 --hidden 8192 --heads 64 --kv-heads 64 --ffn 22016 --vocab 32000"
# Llama-3(.1/.3)-70B: Llama-2-70B's shapes with the 128256-token vocabulary.
LLAMA3_70="llama-2-70b --vocab 128256"

# id | label | published (text) | published bytes (<N or >N: a bound) | needs |
# micro-batches per optimizer step (gradient accumulation) | mem-gen arguments
ROWS=(
  "tt-lora-qv8|torchtune Llama2-7B LoRA, q/v r=8|15.57 GB reserved|15570000000||64|llama-2-7b --seq 512 --batch 2 --lora rank=8,alpha=16,dropout=0.05,targets=q_proj,v_proj --precision bf16-pure --optimizer adamw"
  "tt-lora-all8|torchtune Llama2-7B LoRA, all layers r=8|15.87 GB reserved|15870000000||64|llama-2-7b --seq 512 --batch 2 --lora rank=8,alpha=16,dropout=0.05,targets=$ALL7,lm_head --precision bf16-pure --optimizer adamw"
  "tt-lora-qv64|torchtune Llama2-7B LoRA, q/v r=64|15.86 GB reserved|15860000000||64|llama-2-7b --seq 512 --batch 2 --lora rank=64,alpha=128,dropout=0.05,targets=q_proj,v_proj --precision bf16-pure --optimizer adamw"
  "tt-lora-all64|torchtune Llama2-7B LoRA, all layers r=64|17.04 GB reserved|17040000000||64|llama-2-7b --seq 512 --batch 2 --lora rank=64,alpha=128,dropout=0.05,targets=$ALL7,lm_head --precision bf16-pure --optimizer adamw"
  "tt-qlora|torchtune Llama2-7B QLoRA, attn+MLP r=8|9.29 GB reserved|9290000000|nf4|16|llama-2-7b --seq 512 --batch 2 --lora rank=8,alpha=16,dropout=0.05,targets=$ALL7 --precision bf16-pure --optimizer adamw --quantize-frozen=nf4"
  "us-lora8b-adamw|Unsloth Llama-3-8B LoRA 16-bit, 32-bit AdamW instead of adamw_8bit|22 GB min.|22000000000||4|llama-3-8b --seq 2048 --batch 2 --lora rank=16,alpha=16,targets=$ALL7 --precision bf16-mixed --optimizer adamw"
  "us-lora8b|Unsloth Llama-3-8B LoRA 16-bit|22 GB min.|22000000000|8bit|4|llama-3-8b --seq 2048 --batch 2 --lora rank=16,alpha=16,targets=$ALL7 --precision bf16-mixed --optimizer adamw8bit"
  "us-qlora8b|Unsloth Llama-3-8B QLoRA 4-bit|6 GB min.|6000000000|nf4 8bit|4|llama-3-8b --seq 2048 --batch 2 --lora rank=16,alpha=16,targets=$ALL7 --precision bf16-mixed --optimizer adamw8bit --quantize-frozen=nf4"
  "us-qlora70b|Unsloth Llama-3-70B QLoRA 4-bit|41 GB min.|41000000000|nf4 8bit|4|$LLAMA3_70 --seq 2048 --batch 2 --lora rank=16,alpha=16,targets=$ALL7 --precision bf16-mixed --optimizer adamw8bit --quantize-frozen=nf4"
  "qp-qlora65b|QLoRA paper LLaMA-65B QLoRA r=64, one 48 GB GPU|< 48 GB|<48000000000|nf4|16|$LLAMA65 --seq 528 --batch 1 --lora rank=64,alpha=16,dropout=0.05,targets=$ALL7 --precision bf16-pure --optimizer adamw --quantize-frozen=nf4"
  "qp-full65b-mixed|QLoRA paper LLaMA-65B 16-bit full fine-tuning, as bf16-mixed|> 780 GB|>780000000000||1|$LLAMA65 --seq 528 --batch 1 --precision bf16-mixed --optimizer adamw"
  "qp-full65b-pure|QLoRA paper LLaMA-65B 16-bit full fine-tuning, as bf16-pure|> 780 GB|>780000000000||1|$LLAMA65 --seq 528 --batch 1 --precision bf16-pure --optimizer adamw"
)

# The options a row needs that this mem-gen lacks, joined by " and ".
missing_for() {
  local needs=$1 out=""
  case " $needs " in *" nf4 "*) [ $have_nf4 = 1 ] || out="mem-gen --quantize-frozen=nf4" ;; esac
  case " $needs " in *" 8bit "*)
    [ $have_8bit = 1 ] || out="${out:+$out and }mem-gen --optimizer=adamw8bit" ;;
  esac
  echo "$out"
}

start_all=$(date +%s.%N)
: > "$tmp/rows"
for row in "${ROWS[@]}"; do
  IFS='|' read -r id label published pub_bytes needs acc args <<< "$row"
  lacking=$(missing_for "$needs")
  if [ -n "$lacking" ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$published" "$pub_bytes" "missing" "$lacking" >> "$tmp/rows"
    continue
  fi
  accumulate=()
  [ "$acc" -gt 1 ] && accumulate=(--train-accumulate-gradients="micro-batches=$acc")
  : > "$tmp/$id.times"
  for _ in $(seq "$REPEATS"); do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$GEN" $args --train -o "$tmp/$id.mlir"
    "$OPT" "$tmp/$id.mlir" "${accumulate[@]}" --train-lifetimes --train-remat='algorithm=layers' \
      --train-memory-report="format=json output=$tmp/$id.json" -o /dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc >> "$tmp/$id.times"
  done
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$published" "$pub_bytes" "ran" "$acc|$args" >> "$tmp/rows"
done
end_all=$(date +%s.%N)
total=$(echo "$end_all - $start_all" | bc)

python3 - "$tmp" "$OUT_DIR" "$REPEATS" "$total" <<'PY'
import json, os, statistics, sys
tmp, out_dir, repeats, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
GB = 1e9
def gb(b):
    return "%.2f" % (b / GB)
head = ("| row | published | micro-batches | predicted peak | frozen weights | trained weights | master | "
        "gradients | optimizer states | saved activations | predicted - published | "
        "peak without checkpointing | mem-gen + mem-opt (median of %d) |" % repeats)
lines = [head, "|" + "---|" * 13]
exact = []
for line in open(os.path.join(tmp, "rows")):
    rid, label, published, pub_bytes, status, rest = line.rstrip("\n").split("\t")
    if status == "missing":
        lines.append("| %s | %s | | not yet available (needs %s) |%s" % (label, published, rest, " |" * 9))
        exact.append({"id": rid, "label": label, "published": published, "available": False,
                      "needs": rest.split(" and ")})
        continue
    acc, args = rest.split("|", 1)
    d = json.load(open(os.path.join(tmp, rid + ".json")))
    m = d["model_states"]
    times = [float(t) for t in open(os.path.join(tmp, rid + ".times"))]
    trained = m["weights"]["bytes"] + m["adapter_weights"]["bytes"]
    # Frozen: 16-bit and quantized storage (codes and scales); optimizer
    # states: 32-bit and 8-bit.
    frozen = m["frozen_weights"]["bytes"] + m["quantized_weights"]["bytes"]
    states = m["optimizer_states"]["bytes"] + m["optimizer_states_8bit"]["bytes"]
    diff = ""
    if pub_bytes[:1] in "<>" and pub_bytes:
        bound = int(pub_bytes[1:])
        side = "below" if d["peak_bytes"] < bound else "above"
        diff = "%s the bound by %.2f" % (side, abs(d["peak_bytes"] - bound) / GB)
    elif pub_bytes:
        delta = d["peak_bytes"] - int(pub_bytes)
        diff = "%+.2f (%+.1f%%)" % (delta / GB, 100.0 * delta / int(pub_bytes))
    before = (d["remat"] or {}).get("peak_before")
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f s |" % (
        label, published, acc, gb(d["peak_bytes"]), gb(frozen), gb(trained),
        gb(m["master_weights"]["bytes"]), gb(m["gradients"]["bytes"]),
        gb(states), gb(d["saved_activations"]["bytes"]), diff,
        gb(before) if before is not None else "", statistics.median(times)))
    exact.append({"id": rid, "label": label, "published": published, "available": True,
                  "mem_gen": args, "micro_batches": int(acc), "peak_bytes": d["peak_bytes"], "load_bytes": d["load_bytes"],
                  "peak_op": d["peak_op"], "parameter_count": m["parameter_count"],
                  "trainable_parameter_count": m["trainable_parameter_count"],
                  "frozen_weights": m["frozen_weights"]["bytes"],
                  "quantized_weights": m["quantized_weights"]["bytes"],
                  "trained_weights": trained, "master_weights": m["master_weights"]["bytes"],
                  "gradients": m["gradients"]["bytes"],
                  "optimizer_states": m["optimizer_states"]["bytes"],
                  "optimizer_states_8bit": m["optimizer_states_8bit"]["bytes"],
                  "model_states_total": m["total"]["bytes"],
                  "saved_activations": d["saved_activations"]["bytes"],
                  "by_class_at_peak": d["by_class"],
                  "peak_without_checkpointing": before,
                  "seconds": times})
lines.append("")
lines.append("GB = 10^9 bytes. Whole script: %.1f s (%d runs per row)." % (total, repeats))
table = "\n".join(lines) + "\n"
sys.stdout.write(table)
with open(os.path.join(out_dir, "results.md"), "w") as f:
    f.write(table)
with open(os.path.join(out_dir, "results.json"), "w") as f:
    json.dump(exact, f, indent=1)
    f.write("\n")
PY
