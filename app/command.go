package app

import "github.com/reviewbot-dev/reviewbot/app/comment"

// parseBotCommand finds `@<name> review`, `@<name> re-review` or
// `@<name> help` on a line of its own in the visible text of a comment.
func parseBotCommand(body, name string) (string, bool) {
	cmd := comment.Parse(body, name).Bot
	return cmd, cmd != ""
}

// mayCommand is the one authorization rule for comment commands: the
// author association must be one of the configured ones (write access by
// default).
func (s *Server) mayCommand(association string) bool {
	return comment.Authorized(s.cfg.CommandAssociations, association)
}
