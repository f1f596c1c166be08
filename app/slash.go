package app

import "github.com/reviewbot-dev/reviewbot/app/comment"

// The reuse commands (SPEC §5) are read by the one comment parser
// (package comment); these names keep the App's code short.
const (
	cmdReuse = comment.CmdReuse
	cmdUse   = comment.CmdUse
)

// slashCommand is the reuse command of one comment.
type slashCommand = comment.Reuse

// parseSlashCommand returns the reuse command of a comment body, if any.
func parseSlashCommand(body string) (slashCommand, bool) {
	if c := comment.Parse(body, "").Reuse; c != nil {
		return *c, true
	}
	return slashCommand{}, false
}
