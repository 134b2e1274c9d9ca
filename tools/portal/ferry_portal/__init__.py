"""The Ferry portal: write, run and watch MPI programs from a web browser (docs/DESIGN.md,
"The portal"). Started by `ferry portal`, which runs `python -m ferry_portal`."""
