package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const deployDir = "../../deploy"

// TestAppManifest checks the GitHub App manifest asks for exactly the
// permissions and events the App uses (SPEC §8).
func TestAppManifest(t *testing.T) {
	// Every field GitHub's manifest flow knows; an unknown one is a typo.
	var m struct {
		Name        string            `json:"name"`
		URL         string            `json:"url"`
		Description string            `json:"description"`
		Public      bool              `json:"public"`
		Hook        map[string]any    `json:"hook_attributes"`
		Redirect    string            `json:"redirect_url"`
		Permissions map[string]string `json:"default_permissions"`
		Events      []string          `json:"default_events"`
	}
	dec := json.NewDecoder(bytes.NewReader(readDeploy(t, "app-manifest.json")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("app-manifest.json: %v", err)
	}
	want := map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "statuses": "write",
		"checks": "write", "actions": "read", "metadata": "read"}
	if len(m.Permissions) != len(want) {
		t.Errorf("permissions %v, want %v", m.Permissions, want)
	}
	for k, v := range want {
		if m.Permissions[k] != v {
			t.Errorf("permission %s = %q, want %q", k, m.Permissions[k], v)
		}
	}
	events := append([]string(nil), m.Events...)
	sort.Strings(events)
	if strings.Join(events, ",") != "issue_comment,pull_request,pull_request_review,pull_request_review_comment" {
		t.Errorf("events %v", m.Events)
	}
	if u, _ := m.Hook["url"].(string); !strings.HasSuffix(u, "/webhook") {
		t.Errorf("hook url %q does not point at /webhook", u)
	}
}

// TestKubernetesDeployment checks the Deployment against the server: its
// environment is a valid `reviewbot serve` configuration, its probes hit
// the health endpoints, and it has resource limits.
func TestKubernetesDeployment(t *testing.T) {
	var dep struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
					Containers                    []struct {
						Args []string
						Env  []struct {
							Name      string
							Value     string
							ValueFrom map[string]map[string]string `yaml:"valueFrom"`
						}
						LivenessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"livenessProbe"`
						ReadinessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"readinessProbe"`
						Resources struct{ Limits, Requests map[string]string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/deployment.yaml"), &dep); err != nil {
		t.Fatal(err)
	}
	if dep.Kind != "Deployment" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deployment.yaml: kind %q, %d containers", dep.Kind, len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes %q, %q", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	if c.Resources.Limits["memory"] == "" || c.Resources.Limits["cpu"] == "" || c.Resources.Requests["memory"] == "" {
		t.Errorf("resources %+v", c.Resources)
	}
	keyFile := filepath.Join(t.TempDir(), "private-key.pem")
	if err := os.WriteFile(keyFile, []byte(testKeyPEM(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom["secretKeyRef"]["key"] == "app-id":
			env[e.Name] = "123456"
		case e.ValueFrom["secretKeyRef"] != nil:
			env[e.Name] = "secret-from-the-secret"
		case e.Name == "GITHUB_APP_PRIVATE_KEY_FILE":
			env[e.Name] = keyFile
		default:
			env[e.Name] = e.Value
		}
	}
	cfg, err := loadServeConfig(c.Args[1:], envOf(env), &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("the Deployment's environment is not a valid configuration: %v", err)
	}
	if grace := dep.Spec.Template.Spec.TerminationGracePeriodSeconds; float64(grace) <= cfg.shutdownTimeout.Seconds() {
		t.Errorf("terminationGracePeriodSeconds %d does not leave room for the %v drain", grace, cfg.shutdownTimeout)
	}
	for _, f := range []string{"kubernetes/service.yaml", "kubernetes/kustomization.yaml", "kubernetes/secret.example.yaml", "kubernetes/namespace.yaml"} {
		var doc map[string]any
		if err := yaml.Unmarshal(readDeploy(t, f), &doc); err != nil || doc["kind"] == nil && doc["resources"] == nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func readDeploy(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
