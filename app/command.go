package app

import "github.com/reviewbot-dev/reviewbot/app/comment"

// mayCommand is the one authorization rule for comment commands: the
// author association must be one of the configured ones (write access by
// default).
func (s *Server) mayCommand(association string) bool {
	return comment.Authorized(s.cfg.CommandAssociations, association)
}
