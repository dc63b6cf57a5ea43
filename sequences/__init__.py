"""Precomputed box-discrepancy sequences (data package; see README.md here and ``qmc_orff.catalogue``)."""
