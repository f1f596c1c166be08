package pipeline

import "github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"

// The static shell evaluator lives in package sheval; the model and its
// rules name its types as their own.
type (
	Result   = sheval.Result
	Loc      = sheval.Loc
	Env      = sheval.Env
	Run      = sheval.Run
	RunKind  = sheval.RunKind
	Stat     = sheval.Stat
	Path     = sheval.Path
	Files    = sheval.Files
	Req      = sheval.Req
	Eval     = sheval.Eval
	Value    = sheval.Value
	Exit     = sheval.Exit
	Decision = sheval.Decision
)

// Run kinds and value constructors of the evaluator.
const (
	RunScript = sheval.RunScript
	RunRecipe = sheval.RunRecipe
)

// Str and Opaque make values of a job's env.
var (
	Str    = sheval.Str
	Opaque = sheval.Opaque
)
