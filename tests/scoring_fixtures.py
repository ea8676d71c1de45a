"""Tiny models for the scoring tests, built from configs with tokenizers trained on the fly (BPE)
or written out (WordPiece).

Each is saved with save_pretrained to a temp dir and loaded back through `from_pretrained`, the
path users take with hub ids. Hidden size 32, 2 layers: fast on 2 CPU cores.
"""

from __future__ import annotations

import pytest

CORPUS = [
    "The cat sat on the mat.",
    "Dogs chase cats quickly around the garden.",
    "Who did Mary see yesterday at the unbelievable party?",
    "The keys to the cabinet are on the table.",
    "She thinks that the children have eaten the cookies.",
    "Colorless green ideas sleep furiously.",
    "What did the teacher wonder whether the students read?",
    "An unexpectedly complicated tokenization happens here.",
]
SENTENCES = [
    "The cat sat on the mat.",
    "Who did Mary see?",
    "Dogs chase cats.",
    "The keys to the cabinet is on the table.",
    "An unbelievable tokenization of unexpectedly weird words.",
    "Colorless green ideas sleep furiously.",
    "She thinks.",
]
MAX_POSITIONS = 64


def _train(tokenizer, trainer) -> None:
    tokenizer.train_from_iterator(CORPUS * 5, trainer)


def make_gpt2(path, positions: int = MAX_POSITIONS) -> str:
    """Byte-level BPE tokenizer + GPT2LMHeadModel, BOS = EOS = <|endoftext|> as in GPT-2."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    _train(
        tok,
        trainers.BpeTrainer(
            vocab_size=330,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )
    fast.save_pretrained(path)
    config = GPT2Config(
        vocab_size=len(fast), n_embd=32, n_layer=2, n_head=2, n_positions=positions,
        bos_token_id=0, eos_token_id=0,
    )
    _seed()
    GPT2LMHeadModel(config).save_pretrained(path)
    return str(path)


# The WordPiece vocabulary WordPieceTrainer(vocab_size=110) learns from CORPUS * 5, written out:
# the trainer breaks ties between equally frequent merges in hash order, which changes from run to
# run, so training it here gave another tiny BERT (and other scores) in each test session.
BERT_VOCAB = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", "?", "a", "b", "c", "d", "e", "f", "g", "h",
    "i", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "##e",
    "##a", "##d", "##h", "##t", "##r", "##n", "##s", "##y", "##b", "##i", "##v", "##o", "##m",
    "##p", "##l", "##c", "##u", "##k", "##g", "##z", "##x", "##he", "the", "##at", "##en", "##le",
    "co", "##ea", "##er", "##ar", "##ab", "##ly", "ar", "ch", "cat", "di", "ha", "on", "th", "to",
    "un", "wh", "##ed", "##es", "##den", "##nd", "##in", "##io", "##ic", "##her", "##able", "did",
    "at", "an", "cab", "do", "eat", "fu", "gr", "gar", "her", "id", "ke", "mat", "mar", "par",
    "qu", "rea", "se", "st", "she", "sat", "sle", "tea", "table", "wo", "whe",
]


def _bert_tokenizer():
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(BERT_VOCAB)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]",
    )


def _bert_config(vocab_size: int, positions: int = MAX_POSITIONS, **extra):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=positions, **extra,
    )


def _with_bert_tokenizer(path, model_for) -> str:
    """Save the WordPiece tokenizer and `model_for(tokenizer)`, built after seeding, to `path`."""
    fast = _bert_tokenizer()
    fast.save_pretrained(path)
    _seed()
    model_for(fast).save_pretrained(path)
    return str(path)


def make_bert(path, positions: int = MAX_POSITIONS) -> str:
    """WordPiece tokenizer (small vocabulary, so words split into pieces) + BertForMaskedLM."""
    from transformers import BertForMaskedLM

    return _with_bert_tokenizer(path, lambda fast: BertForMaskedLM(_bert_config(len(fast), positions)))


def make_distilbert(path) -> str:
    """DistilBertForMaskedLM: a masked LM outside the BERT family's module layout."""
    from transformers import DistilBertConfig, DistilBertForMaskedLM

    return _with_bert_tokenizer(path, lambda fast: DistilBertForMaskedLM(DistilBertConfig(
        vocab_size=len(fast), dim=32, n_layers=2, n_heads=2, hidden_dim=64,
        max_position_embeddings=MAX_POSITIONS,
    )))


def make_roberta(path) -> str:
    """RobertaForMaskedLM (BabyBERTa's architecture): BERT-family layers, positions offset by padding."""
    from transformers import RobertaConfig, RobertaForMaskedLM

    return _with_bert_tokenizer(path, lambda fast: RobertaForMaskedLM(RobertaConfig(
        vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=MAX_POSITIONS + 2,
        pad_token_id=fast.pad_token_id, bos_token_id=fast.cls_token_id, eos_token_id=fast.sep_token_id,
    )))


def make_classifier(path, positions: int = MAX_POSITIONS) -> str:
    """BertForSequenceClassification with 2 labels (1 = acceptable, as in CoLA)."""
    from transformers import BertForSequenceClassification

    return _with_bert_tokenizer(
        path, lambda fast: BertForSequenceClassification(_bert_config(len(fast), positions, num_labels=2))
    )


def _seed() -> None:
    import torch

    torch.manual_seed(0)


@pytest.fixture(scope="session")
def gpt2_dir(tmp_path_factory) -> str:
    return make_gpt2(tmp_path_factory.mktemp("gpt2"))


@pytest.fixture(scope="session")
def bert_dir(tmp_path_factory) -> str:
    return make_bert(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="session")
def distilbert_dir(tmp_path_factory) -> str:
    return make_distilbert(tmp_path_factory.mktemp("distilbert"))


@pytest.fixture(scope="session")
def roberta_dir(tmp_path_factory) -> str:
    return make_roberta(tmp_path_factory.mktemp("roberta"))


@pytest.fixture(scope="session")
def classifier_dir(tmp_path_factory) -> str:
    return make_classifier(tmp_path_factory.mktemp("classifier"))


@pytest.fixture(scope="session")
def sentences() -> list[str]:
    return list(SENTENCES)


def make_t5(path) -> str:
    """T5-style Unigram tokenizer (Metaspace pieces, `</s>` appended, sentinels `<extra_id_N>`,
    no BOS or mask token) + T5ForConditionalGeneration; the output layer is wider than the
    tokenizer, as t5-small's 32128 rows for 32100 tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    _train(tok, trainers.UnigramTrainer(vocab_size=120, special_tokens=["<pad>", "</s>", "<unk>"],
                                        unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
        additional_special_tokens=[f"<extra_id_{i}>" for i in range(3)],
    )
    fast.save_pretrained(path)
    config = T5Config(
        vocab_size=len(fast) + 5, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_decoder_layers=2,
        num_heads=2, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
    )
    _seed()
    T5ForConditionalGeneration(config).save_pretrained(path)
    return str(path)


def make_bart(path) -> str:
    """BART-style byte-level BPE tokenizer (`<s> ... </s>`, `<mask>`) + BartForConditionalGeneration,
    decoder start `</s>` as in facebook/bart-base."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    _train(tok, trainers.BpeTrainer(
        vocab_size=330, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    ))
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=False)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>",
        pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
    )
    fast.save_pretrained(path)
    config = BartConfig(
        vocab_size=len(fast), d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
        decoder_ffn_dim=64, max_position_embeddings=MAX_POSITIONS, init_std=0.2,
    )
    _seed()
    model = BartForConditionalGeneration(config)
    model.final_logits_bias.normal_(0, 1)  # added after the output layer (zeros in bart-base)
    model.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="session")
def t5_dir(tmp_path_factory) -> str:
    return make_t5(tmp_path_factory.mktemp("t5"))


@pytest.fixture(scope="session")
def bart_dir(tmp_path_factory) -> str:
    return make_bart(tmp_path_factory.mktemp("bart"))
