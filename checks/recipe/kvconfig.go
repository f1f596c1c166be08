package recipe

// KV-connector configs (--kv-transfer-config) as several rules read them.

import (
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// kvConfig is a JSON transfer config that names a KV connector by a
// literal "kv_connector" value.
type kvConfig struct {
	JSON      *script.JSONConfig
	Connector string
	// Line is the line of the kv_connector key.
	Line int
}

// kvConfigs returns the script's KV-connector configs in source order.
func kvConfigs(f *script.Facts) []kvConfig {
	var out []kvConfig
	for _, j := range f.JSON {
		e, ok := j.Entry("kv_connector")
		if !ok || e.Dynamic || e.Kind != script.JSONString || e.Value == "" {
			continue
		}
		out = append(out, kvConfig{JSON: j, Connector: e.Value, Line: e.Line})
	}
	return out
}

// kvConfigsOf returns the configs that name connector.
func kvConfigsOf(f *script.Facts, connector string) []kvConfig {
	var out []kvConfig
	for _, k := range kvConfigs(f) {
		if k.Connector == connector {
			out = append(out, k)
		}
	}
	return out
}

// extraConfig returns the entries directly under kv_connector_extra_config.
func (k kvConfig) extraConfig() []script.JSONEntry {
	return k.JSON.Children("kv_connector_extra_config")
}

// KV-connector names and keys more than one rule reads.
const (
	// simpleConnector is vLLM's CPU offload connector (SH002, SH004,
	// SH005).
	simpleConnector = "SimpleCPUOffloadConnector"
	// extraConfigKey holds a connector's own settings.
	extraConfigKey = "kv_connector_extra_config"
)
