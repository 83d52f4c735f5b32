package settings

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Organization is the index's own identity, as knowledge-stack clients
// ask for their tenant's (get_organization_info): its id, name, default
// language and time zone, and what it holds.
type Organization struct {
	// ID is the index's id, a UUID kept in the index since a writer first
	// opened it (for an older index opened read-only, one derived from
	// its directory until a writer opens it). TenantID repeats it under
	// the seed's name.
	ID       string `json:"id"`
	TenantID string `json:"tenant_id"`
	// Name is the name setting (braid config set name …), else the index
	// folder's name (its parent's, for a folder named .braid).
	Name string `json:"name"`
	// Language is the language setting (a BCP 47 tag), else the
	// machine's; TimeZone the timezone setting (an IANA name), else the
	// machine's. Each From says which: "setting" or "machine".
	Language     string `json:"default_language"`
	LanguageFrom string `json:"language_from"`
	TimeZone     string `json:"timezone"`
	TimeZoneFrom string `json:"timezone_from"`
	Documents    int    `json:"documents"`
	Sources      int    `json:"sources"`
	Dir          string `json:"index"`
}

// Organization describes the index these settings belong to: its id,
// the directory it lives in and what it holds, with the name, language
// and timezone settings, and the machine's language and zone (the system
// locale file, /etc/locale.conf or /etc/default/locale, else "en"; the
// zone the Go runtime found, named by /etc/localtime, else UTC) for those
// the index does not set. Without a name setting the index is named by
// its folder (its parent's, for a folder named .braid). An index without
// an id of its own (an older index opened read-only) gets one derived
// from realDir, its directory with links followed, until a writer opens
// it.
func (v *Values) Organization(id, realDir, dir string, documents, sources int) *Organization {
	if id == "" {
		h := sha256.Sum256([]byte("braid index\x00" + realDir))
		id = fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	}
	o := &Organization{ID: id, TenantID: id, Documents: documents, Sources: sources, Dir: dir,
		LanguageFrom: "setting", TimeZoneFrom: "setting"}
	if v.Name != nil {
		o.Name = *v.Name
	} else {
		o.Name = folderName(dir)
	}
	if v.Language != nil {
		o.Language = *v.Language
	} else {
		o.Language, o.LanguageFrom = machineLanguage(), "machine"
	}
	if v.TimeZone != nil {
		o.TimeZone = *v.TimeZone
	} else {
		o.TimeZone, o.TimeZoneFrom = machineZone(), "machine"
	}
	return o
}

// folderName names an index by its folder: the folder's own name, or for
// a folder named .braid (the default) the name of the folder holding it.
func folderName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if filepath.Base(abs) == ".braid" {
		abs = filepath.Dir(abs)
	}
	return filepath.Base(abs)
}

// machineLanguage is the system locale's language as a BCP 47 tag
// (LANG=de_CH.UTF-8 is de-CH), "en" when none is set or it is C/POSIX.
func machineLanguage() string {
	for _, f := range []string{"/etc/locale.conf", "/etc/default/locale"} {
		file, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		lang := ""
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
			if ok && k == "LANG" {
				lang = strings.Trim(v, `"'`)
			}
		}
		file.Close()
		if tag := localeTag(lang); tag != "" {
			return tag
		}
	}
	return "en"
}

// localeTag turns a locale name (de_CH.UTF-8@euro) into a language tag
// (de-CH); "" for C, POSIX or a name that is no tag.
func localeTag(locale string) string {
	locale, _, _ = strings.Cut(locale, ".")
	locale, _, _ = strings.Cut(locale, "@")
	if locale == "" || locale == "C" || locale == "POSIX" {
		return ""
	}
	var v Values
	if v.Set("language", locale) != nil || v.Language == nil {
		return ""
	}
	return *v.Language
}

// machineZone is the IANA name of the zone the Go runtime uses: its
// name, or for the system's zone the one /etc/localtime links to; UTC
// when neither names one.
func machineZone() string {
	if name := time.Local.String(); name != "Local" && name != "" {
		return name
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	return "UTC"
}

// Text is the organization as braid org prints it.
func (o *Organization) Text() string {
	return fmt.Sprintf("id        %s\nname      %s\nlanguage  %s (%s)\ntimezone  %s (%s)\ndocuments %d\nsources   %d\nindex     %s\n",
		o.ID, o.Name, o.Language, o.LanguageFrom, o.TimeZone, o.TimeZoneFrom, o.Documents, o.Sources, o.Dir)
}
