// Package sweep reads the evidence of a sign-off's checks 1-4 from
// GitHub: the sweep workflow's runs and their jobs (check 1), the eval
// artifact of the run check 1 picked, downloaded bounded and unzipped
// bounded (check 2, evidence.go: Evals), the upstream recipe PRs (check 3)
// and the maintainers' reuse commands, resolved to runs with artifacts
// (check 4, reuse.go: Resolver). It reads; the checks/signoff package
// decides.
package sweep
