// Command voxlab is a viewer for large scientific volumes with GPU-aware
// processing pipelines: dezinging, cell detection and distance matrices.
// Run without arguments it opens the viewer; with a command it runs that
// command headless (see `voxlab --help`).
package main

import (
	_ "github.com/voxlab/voxlab/internal/posixlocale"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// command is one `voxlab CMD` subcommand. Each lives in its own cmd_*.go
// file and registers itself from init.
type command struct {
	name    string
	summary string
	// usage is the synopsis line(s) after "voxlab NAME"; examples are
	// shown by `voxlab NAME --help`.
	usage    string
	examples []string
	// flags declares the command's flags on fs and returns the function
	// that runs it with the positional arguments.
	flags func(fs *flag.FlagSet) func(ctx context.Context, env *env, args []string) error
	// raw commands parse their own arguments (plan and submit take another
	// command's flags): their function gets every argument after the
	// command's name, unparsed, except a first -h/--help.
	raw bool
	// volumes: the command reads volume specs; --help explains Zarr's.
	volumes bool
}

// env is what commands write to.
type env struct {
	stdout, stderr io.Writer
	// sinks receive the events of the jobs a command runs, besides the
	// terminal's (the GUI's processing panel relays them to its queue).
	sinks []job.Sink
	// partials asks pipelines that copy partial results only on request
	// (dezing's finished blocks) to hand them out: someone shows them.
	partials bool
	// inGUI says the command runs inside the GUI, beside the viewer and
	// other jobs: it must not change process-wide settings (the Go memory
	// limit) for its own sake.
	inGUI bool
	// notes, when set, receives each line of a run's report (the GUI's
	// panel shows them with the job), whatever --quiet and --json say.
	notes func(string)
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError marks errors in how a command was called (exit code 2);
// pipelines' specs return them too.
type usageError = pipeline.UsageError

func usagef(format string, a ...any) error { return pipeline.Usagef(format, a...) }

// stopSignals cancel a command as Ctrl-C does: its jobs stop, remove
// their partial outputs and the command exits 1. SIGHUP (the terminal
// closed, an ssh session dropped) is one of them: by default it would end
// the process at once, leaving its temporary files behind.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code: 0 ok, 1
// failure, 2 usage error.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		args = []string{"gui"}
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "help" {
		printHelp(e.stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "voxlab: unknown command %q\n\n", name)
		printHelp(e.stderr)
		return 2
	}
	fs := flag.NewFlagSet("voxlab "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runFn := c.flags(fs)
	if c.raw && (len(args) < 2 || (args[1] != "-h" && args[1] != "--help")) {
		return report(e, c, fs, runFn(ctx, e, args[1:]))
	}
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, c, fs)
		return 0
	}
	if err == nil {
		err = runFn(ctx, e, pos)
	}
	return report(e, c, fs, err)
}

func report(e *env, c *command, fs *flag.FlagSet, err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "voxlab %s: %v\n", c.name, err)
		fmt.Fprintf(e.stderr, "usage: voxlab %s %s\n(see voxlab %s --help)\n", c.name, c.usage, c.name)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.stderr, "voxlab %s: cancelled; %s\n", c.name, job.LeftBehind(err))
		return 1
	default:
		fmt.Fprintf(e.stderr, "voxlab %s: %v\n", c.name, err)
		return 1
	}
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments ("voxlab dezing IN OUT --kernel 5"); "--" ends
// flag parsing.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{Msg: err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at "--" and drops it; everything after is positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "voxlab: view large volumes and process them on the GPU or CPU")
	fmt.Fprintln(w, "\nUsage:\n  voxlab                 open the viewer\n  voxlab COMMAND [ARGS]  run a command headless\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun `voxlab COMMAND --help` for its flags and examples.")
	fmt.Fprintln(w, "Exit status: 0 success, 1 failure, 2 usage error.")
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "voxlab %s: %s\n\nUsage:\n  voxlab %s %s\n", c.name, c.summary, c.name, c.usage)
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", strings.ReplaceAll(b.String(), "  -", "  --"))
	}
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, ex := range c.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
	if c.volumes {
		printSpecHelp(w)
	}
}
