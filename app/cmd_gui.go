package main

import (
	"context"
	"errors"
	"flag"
)

func init() {
	register(&command{
		name:    "gui",
		summary: "open the viewer (the default when no command is given)",
		usage:   "[FILE...]",
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			return func(ctx context.Context, e *env, args []string) error {
				return errors.New("the viewer is not built yet")
			}
		},
	})
}
