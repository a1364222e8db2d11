//go:build tools

// Pins the Temporal server, its SQL schema tool and the Web UI server for `npm run cluster`
// (scripts/lib/binaries.ts builds each package from this module).
package tools

import (
	_ "github.com/temporalio/ui-server/v2/cmd/server"
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
