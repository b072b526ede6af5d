package kustomize

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
)

// An entry of patches: is a strategic-merge patch or a JSON 6902 patch,
// told apart by kustomize's PatchTransformer
// (api/internal/builtins/PatchTransformer.go) by trying both. The native
// path does what that plugin does for each, without configuring the
// plugin (which converts every patch text to JSON to try it as a JSON
// patch); entries it cannot tell apart the same way go to the plugin.

// patchText is the text of a patches entry, as the plugin reads it.
func patchText(l *nativeLoader, p types.Patch) (string, bool) {
	if (p.Patch == "") == (p.Path == "") {
		return "", false
	}
	if p.Path == "" {
		return strings.TrimSpace(p.Patch), true
	}
	data, err := l.Load(p.Path)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// jsonPatchTransformer returns the transformer of a patches entry when its
// patch is a JSON 6902 patch json6902 can apply, else nil. Like kustomize,
// it takes the text for a JSON patch only when it is not a strategic-merge
// patch: one YAML document that is a list.
func (b *builder) jsonPatchTransformer(l *nativeLoader, p types.Patch) *json6902Transformer {
	if p.Target == nil {
		return nil
	}
	text, ok := patchText(l, p)
	if !ok {
		return nil
	}
	if len(splitChunks([]byte(text))) != 1 {
		return nil
	}
	if !startsWithSequence(text) {
		return nil
	}
	ops := parseJSONPatch(text)
	if ops == nil {
		return nil
	}
	return &json6902Transformer{target: *p.Target, text: text, ops: ops, storeID: true}
}

// legacyJSONPatchTransformer returns the transformer of a patchesJson6902
// entry whose patch json6902 can apply, else nil: kustomize's
// PatchJson6902Transformer (api/internal/builtins) then reports what is
// wrong with it. That plugin needs a target with a name, and a file or an
// inline patch, not both; unlike a patches entry, it keeps the objects'
// previous names.
func (b *builder) legacyJSONPatchTransformer(l *nativeLoader, p types.Patch) *json6902Transformer {
	if p.Target == nil || p.Target.Name == "" {
		return nil
	}
	text, ok := patchText(l, p)
	if !ok || text == "" {
		return nil
	}
	ops := parseJSONPatch(text)
	if ops == nil {
		return nil
	}
	return &json6902Transformer{target: *p.Target, text: text, ops: ops}
}

// startsWithSequence reports whether the first content line of text
// opens a YAML sequence (block or flow).
func startsWithSequence(text string) bool {
	for line := range strings.Lines(text) {
		l := strings.TrimRight(line, "\r\n")
		if isFiller(l) {
			continue
		}
		l = strings.TrimLeft(l, " ")
		return l == "-" || strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "[")
	}
	return false
}

// smPatchTransformer is a patches entry with a strategic-merge patch.
type smPatchTransformer struct {
	target  *types.Selector
	patches []*resource.Resource
}

// smPatchTransformer returns the transformer of a patches entry whose
// text holds objects (kustomize then takes it for a strategic-merge patch:
// a text whose first document is an object is never a JSON patch), else
// nil.
func (b *builder) smPatchTransformer(l *nativeLoader, p types.Patch) *smPatchTransformer {
	text, ok := patchText(l, p)
	if !ok {
		return nil
	}
	patches, err := b.sliceFromBytes([]byte(text))
	if err != nil || len(patches) == 0 || (p.Target != nil && len(patches) > 1) {
		return nil
	}
	if p.Options != nil {
		for _, patch := range patches {
			if p.Options.AllowNameChange {
				patch.AllowNameChange()
			}
			if p.Options.AllowKindChange {
				patch.AllowKindChange()
			}
		}
	}
	return &smPatchTransformer{target: p.Target, patches: patches}
}

// renameMayClash reports whether a patch that may rename the objects it
// is applied to could give two objects one id, which resmap's ApplySmPatch
// reports as it adds them back: several objects selected, or another
// object with the patch's name.
func renameMayClash(m resmap.ResMap, selected []*resource.Resource, patch *resource.Resource) bool {
	if !patch.NameChangeAllowed() && !patch.KindChangeAllowed() {
		return false
	}
	if len(selected) != 1 {
		return len(selected) > 1
	}
	for _, r := range m.Resources() {
		if r != selected[0] && r.GetName() == patch.GetName() {
			return true
		}
	}
	return false
}

// Transform does what kustomize's PatchTransformer does with a
// strategic-merge patch.
func (t *smPatchTransformer) Transform(m resmap.ResMap) error {
	if t.target != nil {
		selected, err := m.Select(*t.target)
		if err != nil {
			return err
		}
		patch := t.patches[0]
		native := !renameMayClash(m, selected, patch) && plainPatchMetadata(patch)
		for _, res := range selected {
			native = native && smMergeable(res, patch, true)
		}
		if !native {
			return m.ApplySmPatch(resource.MakeIdSet(selected), patch)
		}
		// As resmap's ApplySmPatch, in the order of the objects.
		for _, res := range selected {
			applySmPatch(res, patch, true)
		}
		return nil
	}
	for _, patch := range t.patches {
		target, err := m.GetById(patch.OrgId())
		if err != nil {
			return fmt.Errorf("no resource matches strategic merge patch %q: %w", patch.OrgId(), err)
		}
		if smMergeable(target, patch, false) {
			applySmPatch(target, patch, false)
			continue
		}
		if err := target.ApplySmPatch(patch); err != nil {
			return err
		}
	}
	return nil
}

// PatchError is kustomize's error applying a patch of a kustomization,
// with the file, the line and the entry (field[index] and its file) of
// that patch. Err is the error kustomize's build gives.
type PatchError struct {
	File  string // slash path of the kustomization file
	Line  int
	Entry string
	Err   error
}

func (e *PatchError) Error() string {
	return fmt.Sprintf("%s: %s: %v", posOf(e.File, e.Line), e.Entry, e.Err)
}

func (e *PatchError) Unwrap() error { return e.Err }
