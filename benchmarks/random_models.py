"""Randomly initialised models of real sizes for bench_scoring.py (speed does not depend on
the weights), with tokenizers trained here, since the hub is unreachable: WordPiece for the
BERTs, byte-level BPE for the GPT-2s, Unigram for T5, Metaspace BPE with a <s> BOS for the
Llama. The configs keep the real vocabulary sizes (30522 / 50257 / 32128 / 32000), so the
output layer costs what it costs with the real models; the tokenizers' own vocabularies
are what the training text yields (at most those sizes).

"tiny-*" are 2-layer models of width 32 with 1024-token vocabularies (the tokenizers then
trained to at most that) for the CPU smoke test of the GPU table
(tests/scoring/test_bench_flops.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from acceptability import data

#: model folder -> (builder, config fields that differ from the builder's default config).
#: The defaults are bert-base, gpt2, t5-small; bert-large and gpt2-medium as published;
#: "tinyllama-size" is TinyLlama-1.1B's shape (LlamaConfig's defaults: vocab 32000,
#: 2048 positions, untied output layer, <s> = 1, </s> = 2).
SPECS = {
    "bert-base-size": ("bert", {}),
    "bert-large-size": ("bert", {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                                 "intermediate_size": 4096}),
    "gpt2-size": ("gpt2", {}),
    "gpt2-medium-size": ("gpt2", {"n_embd": 1024, "n_layer": 24, "n_head": 16}),
    "t5-small-size": ("t5", {}),
    "tinyllama-size": ("llama", {"hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
                                 "num_attention_heads": 32, "num_key_value_heads": 4}),
    "tiny-bert": ("bert", {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                           "intermediate_size": 64, "vocab_size": 1024}),
    "tiny-gpt2": ("gpt2", {"n_embd": 32, "n_layer": 2, "n_head": 2, "vocab_size": 1024}),
    "tiny-llama": ("llama", {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                             "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024}),
}


def corpus_text(data_dir: Path, fallback: list[str]) -> list[str]:
    """Sentences to train the tokenizers on: LI-Adger, CoLA, BLiMP from `data_dir`; where
    none of them is there (a GPU machine without the reference data), `fallback`."""
    texts = []
    for loader, name in ((data.load_li_adger, "li-adger"), (data.load_cola, "cola"), (data.load_blimp, "blimp")):
        try:
            texts += list(loader(data_dir / name).sentences["text"].dropna())
        except Exception as err:  # a missing corpus only makes the vocabulary smaller
            print(f"(tokenizer corpus: skipping {name}: {err})")
    return texts or list(fallback)


def build_models(out: Path, names: list[str], data_dir: Path, fallback: list[str],
                 device: str = "cpu") -> dict[str, Path]:
    """The models `names` (keys of SPECS), each built once into `out`/<name> (seed 0), the
    weights drawn on `device` (a GPU draws a 1.1B model's in a moment)."""
    import torch

    builders = {"bert": _bert, "gpt2": _gpt2, "t5": _t5, "llama": _llama}
    paths = {name: out / name for name in names}
    texts = None
    for name in names:
        if not (paths[name] / "config.json").is_file():
            texts = texts or corpus_text(data_dir, fallback)
            torch.manual_seed(0)
            builder, fields = SPECS[name]
            with torch.device(device):
                builders[builder](texts, paths[name], fields)
    return paths


def _save(tokenizer, model, path: Path, cls: str) -> None:
    """Save both; transformers 4 (minicons) must know the tokenizer class, and both versions
    read tokenizer.json."""
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    config_file = path / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config["tokenizer_class"] = cls
    if "extra_special_tokens" in config:  # transformers 4 reads a list under the older name
        config["additional_special_tokens"] = config.pop("extra_special_tokens")
    config_file.write_text(json.dumps(config))


def _bert(texts: list[str], path: Path, fields: dict) -> None:
    """BERT masked LM with a WordPiece tokenizer (30522)."""
    import tokenizers as tk
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    wordpiece = tk.Tokenizer(tk.models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = tk.normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = tk.pre_tokenizers.BertPreTokenizer()
    wordpiece.decoder = tk.decoders.WordPiece()
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = tk.trainers.WordPieceTrainer(vocab_size=fields.get("vocab_size", 30522), special_tokens=special)
    wordpiece.train_from_iterator(texts, trainer)
    wordpiece.post_processor = tk.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    bert_tok = PreTrainedTokenizerFast(
        tokenizer_object=wordpiece, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=512,
    )
    _save(bert_tok, BertForMaskedLM(BertConfig(**fields)), path, "BertTokenizerFast")


def _gpt2(texts: list[str], path: Path, fields: dict) -> None:
    """GPT-2 causal LM with a byte-level BPE tokenizer (50257)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=fields.get("vocab_size", 50257), special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    ))
    gpt2_tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|endoftext|>", eos_token="<|endoftext|>", model_max_length=1024,
    )
    config = GPT2Config(bos_token_id=0, eos_token_id=0, **fields)
    _save(gpt2_tok, GPT2LMHeadModel(config), path, "GPT2TokenizerFast")


def _llama(texts: list[str], path: Path, fields: dict) -> None:
    """Llama causal LM with a BPE tokenizer as Llama's: Metaspace pieces, <unk> <s> </s> at
    ids 0-2, <s> added before each text (so minicons needs no BOS of its own)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    bpe.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=fields.get("vocab_size", 32000),
                                                     special_tokens=["<unk>", "<s>", "</s>"]))
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    llama_tok = PreTrainedTokenizerFast(  # the plain class: transformers 5's LlamaTokenizer
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", unk_token="<unk>",  # rebuilds its own
        model_max_length=2048, model_input_names=["input_ids", "attention_mask"],
    )
    _save(llama_tok, LlamaForCausalLM(LlamaConfig(**fields)), path, "PreTrainedTokenizerFast")


def _t5(texts: list[str], path: Path, fields: dict) -> None:
    """t5-small-size encoder-decoder (T5Config's defaults, 32128 output rows) with a Unigram
    tokenizer as t5-small's: Metaspace pieces, `</s>` appended, 100 sentinels `<extra_id_N>`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    unigram = Tokenizer(models.Unigram())
    unigram.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    unigram.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    unigram.train_from_iterator(texts, trainers.UnigramTrainer(
        vocab_size=32000, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"))
    unigram.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    # the local text yields ~6.6k pieces: unused tokens fill it to t5-small's 32000, since
    # minicons cuts the output layer to the tokenizer's length (+ its added <|bos|>)
    unigram.add_tokens([f"<unused_{i}>" for i in range(32000 - unigram.get_vocab_size())])
    t5_tok = PreTrainedTokenizerFast(
        tokenizer_object=unigram, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
        additional_special_tokens=[f"<extra_id_{i}>" for i in range(100)], model_max_length=512,
        model_input_names=["input_ids", "attention_mask"],  # T5 takes no token_type_ids
    )
    config = T5Config(vocab_size=32128, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0, **fields)
    _save(t5_tok, T5ForConditionalGeneration(config), path, "PreTrainedTokenizerFast")
