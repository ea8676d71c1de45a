"""Minimal-pair benchmarks in languages other than English, one loader each: TurBLiMP
(Turkish; its human study's ratings: ``turblimp_ratings``), RuBLiMP (Russian), CLAMS
(English, French, German, Hebrew, Russian), SLING (Mandarin Chinese) and MultiBLiMP (101
languages, from the user's folder), all built into one Dataset shape by ``pairs``
(``language``, ``phenomenon`` and ``paradigm`` columns, what was set aside counted)."""
