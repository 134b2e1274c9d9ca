#!/usr/bin/env bash
# timeout: 600
# An archive (tar.gz made by the test) with a program and its input file, uploaded in the
# browser: the program reads the input and writes a text file, a CSV and an SVG; the text file
# downloaded through the page equals what it should be, the CSV is plotted on a canvas and the
# SVG shown as an image.
. "$(dirname "${BASH_SOURCE[0]}")/e2e.inc"
fy_e2e_start
fy_e2e files
