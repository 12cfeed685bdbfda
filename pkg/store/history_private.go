package store

import (
	"database/sql"
	"errors"
	"io/fs"
	"os"

	"github.com/authbench/authbench/pkg/redact"
)

// createPrivate makes path exist with historyMode before SQLite opens it
// (SQLite gives its journal the database's mode), and narrows an index
// an older version left readable to all.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, historyMode)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(path, historyMode)
}

// scrubURLs redacts the target URLs a version 1 index stored raw, then
// rewrites the file (VACUUM) so that the old text is in no free page.
func scrubURLs(db *sql.DB) error {
	rows, err := db.Query(`SELECT rowid, url FROM targets`)
	if err != nil {
		return err
	}
	changed := map[int64]string{}
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			rows.Close()
			return err
		}
		if r := redact.URL(u); r != u {
			changed[id] = r
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, u := range changed {
		if _, err := db.Exec(`UPDATE targets SET url = ? WHERE rowid = ?`, u, id); err != nil {
			return err
		}
	}
	if len(changed) == 0 {
		return nil
	}
	_, err = db.Exec(`VACUUM`)
	return err
}
