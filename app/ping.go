package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPing handles ping, which GitHub sends when the webhook is created:
// acknowledged and logged.
func (s *Server) onPing(_ context.Context, d *delivery, ev *github.PingEvent) routed {
	s.log.Info("ping", append(d.attrs(), "hook", ev.GetHookID(), "zen", ev.GetZen())...)
	return routed{outcome: "pong", detail: ev.GetZen()}
}
