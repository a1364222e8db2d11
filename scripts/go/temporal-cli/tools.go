//go:build tools

package tools

import _ "github.com/temporalio/cli/cmd/temporal"
