// Package pipeline follows a benchmark through the reviewed repository, from
// a master-config row to the script or recipe that runs it:
//
//	row of configs/*-master.yaml
//	  → the matrix entry the sweep generator makes of it (exp-name, defaults)
//	  → the env the workflow template gives the job (.github/workflows/benchmark*-tmpl.yml)
//	  → the runner names of its label (configs/runners.yaml)
//	  → the launch step, which runs runners/launch_<runner>.sh
//	  → the launcher, which computes the benchmark script or srt-slurm recipe
//	  → the script (what it requires and reads) or recipe YAML (what it declares)
//
// Nothing is executed: shell is parsed with mvdan.cc/sh/v3/syntax and walked
// by a small static evaluator (Eval) that follows every path the script can
// take, expanding words with mvdan.cc/sh/v3/expand over what is known of
// the environment, and deciding `[ -f ... ]` tests against the tree. What it
// cannot know (a command's output, a runner machine's variable) stays
// unknown, and every rule stays silent on unknowns.
//
// Model is the result for one tree, built once per tree and memoised in
// the change; the PL rules (pl*.go) compare the model of the base and the
// head where the PR changed a row, a launcher, a template or a recipe.
package pipeline
