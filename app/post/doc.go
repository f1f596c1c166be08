// Package post is where the App writes to a pull request: the review with
// its inline comments (placed by bisection when GitHub rejects some), the
// summary, welcome, reply and verdict comments (found again by hidden
// marker and edited in place, so a repeated run posts nothing twice), and
// the commit statuses (set once per head). Each write first checks the
// job's lease, so a replica that lost the PR writes nothing.
package post
