"""One loader per published data set (BLiMP and its human trials, Zorro, Marvin & Linzen,
SyntaxGym, CoLA, LI-Adger, Lau et al. 2020, MegaAcceptability, AO-CHILDES), the bundled
example, and the numbers the seed papers print."""
