package bb

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/cli/flagerr"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// Leases beyond files: locks, slots, ports and names (internal/hub/leases).

func (a *app) leaseCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "lease",
		Short: "Named leases: locks, build slots, ports and names that agents never fight over",
		Long: `A lease is a named thing only some may hold at once, beside the files that
bb agent reserve protects:

  deploy:staging, db:migrations   an exclusive lock (the default)
  build --capacity 2              a slot that 2 holders share
  port:web (or --port web)        a TCP port of the board's range, each holder its own
  name:db                         a name each holder gets for itself (db-<agent>)

Every grant carries a fencing number that only grows per lease name: a
script checks it still holds what it thinks with bb lease check. --wait
queues the caller in order of arrival. A lease whose holder turned stale
or offline may be taken over (--takeover-stale); an evicted holder's lease
ends by itself; a person may release or hand one over (release --holder).

Ports come from leases.port_range (bb config set leases.port_range
41000-41999); a port is granted only when no other lease holds it on the
same host and it binds there when granted. Sessions get the leases
leases.session declares (bb config set leases.session "port:web name:db")
at their start, as environment variables (bb env --leases).`,
		Example: `  bb lease acquire deploy:staging --ttl 30
  bb lease acquire build --capacity 2 --wait 10m
  PORT=$(bb -q lease acquire --port web)
  bb lease check deploy:staging --fence 7 && ./deploy.sh
  bb lease list`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.leaseAcquireCmd(), a.leaseReleaseCmd(), a.leaseRenewCmd(), a.leaseListCmd(), a.leaseShowCmd(), a.leaseCheckCmd())
	return c
}

// leaseName is the lease a command names: its argument, or --port's.
func leaseName(args []string, port string) (string, error) {
	switch {
	case port != "" && len(args) > 0:
		return "", usageErr{fmt.Errorf("give a lease name or --port, not both")}
	case port != "":
		return string(leases.KindPort) + ":" + port, nil
	case len(args) == 0:
		return "", usageErr{fmt.Errorf("name the lease (bb lease acquire build) or give --port <label>")}
	}
	return args[0], nil
}

func (a *app) leaseAcquireCmd() *cobra.Command {
	var in leases.AcquireInput
	var port, wait string
	var capacity, ttl int
	c := &cobra.Command{
		Use:   "acquire [<name>]",
		Short: "Acquire a lock, a slot, a port or a name; acquiring your own again renews it",
		Long: `Acquire a lease for the acting agent (--as / $BB_AGENT_ID).

  held by others            LEASE_CONFLICT (exit 1), or with --wait <duration>
                            queue in order of arrival until granted or the time is up
  holder stale or offline   LEASE_STALE_FOUND (--takeover-stale takes it over)
  expired, holder evicted   granted: the old grant ends (lease.expired)

With -q only the value is printed: the port of a port, the name of a name,
the fencing number of a lock.`,
		Example: `  bb lease acquire deploy:staging
  bb lease acquire build --capacity 2 --wait 10m
  bb lease acquire --port web
  bb lease acquire name:db
  bb --json lease acquire db:migrations --ttl 15 --takeover-stale`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := leaseName(args, port)
			if err != nil {
				return err
			}
			in.Name = name
			if in.Agent, err = a.taskActor(); err != nil {
				return err
			}
			if cmd.Flags().Changed("capacity") {
				in.Capacity = &capacity
			}
			if cmd.Flags().Changed("ttl") {
				in.TTLMinutes = &ttl
			}
			if wait != "" {
				if in.Wait, err = hub.ParseDuration(wait); err != nil {
					return err
				}
			}
			in.Worktree, in.Host = a.leaseWhere()
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			g, err := svc.AcquireLease(cmd.Context(), in)
			// A port granted by a bb serve on another host was not probed
			// here: one in use on this host is given back for another.
			for tries := 0; err == nil && g.Lease.Kind == leases.KindPort && !g.Probed && tries < maxPortTries; tries++ {
				p := portOf(g.Lease.Value)
				if portFree(p) {
					break
				}
				in.Avoid = append(in.Avoid, p)
				g, err = svc.AcquireLease(cmd.Context(), in)
			}
			if err != nil {
				return err
			}
			return a.reply(cmd, g, func(w io.Writer) {
				if a.g.quiet {
					fmt.Fprintln(w, leaseValue(g.Lease))
					return
				}
				verb := "Acquired"
				if g.Renewed {
					verb = "Renewed"
				}
				fmt.Fprintf(w, "%s %s (fence %d) until %s\n", verb, leaseWhat(g.Lease), g.Lease.Fence, a.when().at(g.Lease.ExpiresAt))
				for _, t := range g.TakenOver {
					fmt.Fprintf(w, "Took it over from %s (fence %d)\n", termtext.Line(t.Agent), t.Fence)
				}
				if g.Waited > 0 {
					fmt.Fprintf(w, "Waited %s\n", g.Waited)
				}
				if env := leases.EnvName(g.Lease.Name); env != "" {
					fmt.Fprintf(w, "%s=%s\n", env, g.Lease.Value)
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&port, "port", "", "acquire a TCP port with this label (the lease port:<label>)")
	f.IntVar(&capacity, "capacity", 1, fmt.Sprintf("how many may hold the lease at once (1..%d; a new lease's, or the same as it has)", leases.MaxCapacity))
	f.IntVar(&ttl, "ttl", leases.DefaultTTL, fmt.Sprintf("minutes until the lease expires (%d..%d)", leases.MinTTL, leases.MaxTTL))
	flagerr.SetRange(f, "ttl", leases.MinTTL, leases.MaxTTL)
	f.StringVar(&wait, "wait", "", "queue for at most this long (10s, 5m, 1h) instead of failing when held")
	f.BoolVar(&in.TakeoverStale, "takeover-stale", false, "take the lease over from a stale or offline holder")
	return c
}

// maxPortTries bounds the ports a caller on another host than its bb
// serve gives back because it found them in use.
const maxPortTries = 20

func portOf(v string) int {
	p, _ := strconv.Atoi(v)
	return p
}

// portFree binds port on this host and releases it.
func portFree(port int) bool { return leases.OSMachine{}.PortFree(port) }

// leaseWhere is the work tree and host a lease is acquired from: ports
// are per host, so the host is always named (through bb serve, the
// caller's, not the server's).
func (a *app) leaseWhere() (worktree, host string) {
	if wd, err := a.env.Getwd(); err == nil {
		worktree = a.where(wd).Worktree
	}
	host, _ = os.Hostname()
	return worktree, host
}

// leaseWhat names a grant: the lease, and what it hands out.
func leaseWhat(l leases.Lease) string {
	if l.Value != "" {
		return termtext.Line(l.Name) + " = " + termtext.Line(l.Value)
	}
	return termtext.Line(l.Name)
}

// leaseValue is what -q prints of a grant.
func leaseValue(l leases.Lease) string {
	if l.Value != "" {
		return l.Value
	}
	return strconv.FormatInt(l.Fence, 10)
}

func (a *app) leaseReleaseCmd() *cobra.Command {
	var in leases.ReleaseInput
	var port string
	var all bool
	c := &cobra.Command{
		Use:   "release [<name>]",
		Short: "Release your lease, or (a person) a stale agent's, or hand it over",
		Long: `Release the acting agent's lease. Only its holder may (RELEASE_FORBIDDEN),
except a person (an agent registered with role ` + hub.RolePerson + `): with --holder, a
person releases another agent's lease once that holder is stale or offline
or the lease expired, and with --to hands it over (the new holder gets the
same port or name under a new fencing number). --all releases every lease
the acting agent holds.`,
		Example: `  bb lease release deploy:staging
  bb lease release --port web
  bb lease release --all
  bb lease release build --as dana --holder wise-robin --to calm-otter`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := a.taskActor()
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			if all {
				if len(args) > 0 || port != "" {
					return usageErr{fmt.Errorf("--all releases every lease: name none")}
				}
				ls, err := svc.ReleaseAgentLeases(cmd.Context(), agent)
				if err != nil {
					return err
				}
				return a.reply(cmd, ls, func(w io.Writer) {
					for _, l := range ls {
						fmt.Fprintf(w, "Released %s (fence %d)\n", leaseWhat(l), l.Fence)
					}
					if len(ls) == 0 {
						fmt.Fprintf(w, "%s holds no lease\n", agent)
					}
				})
			}
			if in.Name, err = leaseName(args, port); err != nil {
				return err
			}
			in.Agent = agent
			r, err := svc.ReleaseLease(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.reply(cmd, r, func(w io.Writer) {
				who := ""
				if r.ByPerson {
					who = fmt.Sprintf(" held by %s (%s)", termtext.Line(r.Released.Agent), r.HolderPresence)
				}
				fmt.Fprintf(w, "Released %s%s (fence %d)\n", leaseWhat(r.Released), who, r.Released.Fence)
				if h := r.HandedOver; h != nil {
					fmt.Fprintf(w, "Handed it over to %s (fence %d) until %s\n", termtext.Line(h.Agent), h.Fence, a.when().at(h.ExpiresAt))
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&port, "port", "", "release the port lease port:<label>")
	f.StringVar(&in.Holder, "holder", "", "a person: the agent whose lease to release")
	f.StringVar(&in.To, "to", "", "a person: hand the lease over to this agent")
	f.BoolVar(&all, "all", false, "release every lease the acting agent holds")
	return c
}

func (a *app) leaseRenewCmd() *cobra.Command {
	var in leases.RenewInput
	var port string
	var ttl int
	c := &cobra.Command{
		Use:     "renew [<name>]",
		Short:   "Move your lease's expiry to now + its TTL (same fencing number)",
		Example: "  bb lease renew deploy:staging --ttl 60\n  bb lease renew --port web",
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if in.Name, err = leaseName(args, port); err != nil {
				return err
			}
			if in.Agent, err = a.taskActor(); err != nil {
				return err
			}
			if cmd.Flags().Changed("ttl") {
				in.TTLMinutes = &ttl
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			l, err := svc.RenewLease(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.reply(cmd, l, func(w io.Writer) {
				fmt.Fprintf(w, "Renewed %s (fence %d) until %s\n", leaseWhat(l), l.Fence, a.when().at(l.ExpiresAt))
			})
		},
	}
	c.Flags().StringVar(&port, "port", "", "renew the port lease port:<label>")
	c.Flags().IntVar(&ttl, "ttl", leases.DefaultTTL, fmt.Sprintf("minutes from now (%d..%d)", leases.MinTTL, leases.MaxTTL))
	flagerr.SetRange(c.Flags(), "ttl", leases.MinTTL, leases.MaxTTL)
	return c
}

func (a *app) leaseListCmd() *cobra.Command {
	var f leases.ListFilter
	c := &cobra.Command{
		Use:     "list",
		Short:   "List the leases held or waited for",
		Example: "  bb lease list\n  bb lease list --agent wise-robin\n  bb --json lease list --all",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			ss, err := svc.ListLeases(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.reply(cmd, ss, func(w io.Writer) {
				if len(ss) == 0 {
					fmt.Fprintln(w, "No leases held.")
					return
				}
				for _, s := range ss {
					fmt.Fprintln(w, a.leaseLine(s))
				}
			})
		},
	}
	c.Flags().StringVar(&f.Agent, "agent", "", "only the leases this agent holds or waits for")
	c.Flags().BoolVar(&f.All, "all", false, "also leases nobody holds")
	return c
}

// leaseLine is one lease in a line: name, kind and capacity, holders
// with their fencing numbers, waiters.
func (a *app) leaseLine(s leases.Status) string {
	var b strings.Builder
	b.WriteString(termtext.Line(s.Name))
	if s.Kind == leases.KindLock && s.Capacity > 1 {
		fmt.Fprintf(&b, " (%d slots, %d free)", s.Capacity, s.Free)
	}
	if len(s.Holders) == 0 {
		b.WriteString(": free")
	}
	for i, h := range s.Holders {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s", sep, termtext.Line(h.Agent))
		if h.Value != "" {
			fmt.Fprintf(&b, " = %s", termtext.Line(h.Value))
		}
		fmt.Fprintf(&b, " (fence %d, %s", h.Fence, h.Presence)
		if h.Expired {
			b.WriteString(", expired")
		} else {
			fmt.Fprintf(&b, ", until %s", a.when().at(h.ExpiresAt))
		}
		b.WriteString(")")
	}
	if n := len(s.Waiters); n > 0 {
		names := make([]string, n)
		for i, w := range s.Waiters {
			names[i] = termtext.Line(w.Agent)
		}
		fmt.Fprintf(&b, "; %d waiting: %s", n, strings.Join(names, ", "))
	}
	return b.String()
}

func (a *app) leaseShowCmd() *cobra.Command {
	var port string
	return a.withPort(&cobra.Command{
		Use:     "show [<name>]",
		Short:   "Show one lease: its holders, their liveness, its queue and its last fencing number",
		Example: "  bb lease show build\n  bb --json lease show --port web",
		Args:    usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := leaseName(args, port)
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			s, err := svc.LeaseStatus(cmd.Context(), name)
			if err != nil {
				return err
			}
			return a.reply(cmd, s, func(w io.Writer) {
				fmt.Fprintln(w, a.leaseLine(s))
				fmt.Fprintf(w, "kind %s, capacity %d, last fence %d\n", s.Kind, s.Capacity, s.Fence)
			})
		},
	}, &port)
}

// withPort adds --port to a command that names one lease.
func (a *app) withPort(c *cobra.Command, port *string) *cobra.Command {
	c.Flags().StringVar(port, "port", "", "the port lease port:<label>")
	return c
}

// errNotHeld ends bb lease check with exit 1 after its reply.
var errNotHeld = fmt.Errorf("%w: lease not held", errUnhealthy)

func (a *app) leaseCheckCmd() *cobra.Command {
	var port string
	var fence int64
	c := a.withPort(&cobra.Command{
		Use:   "check [<name>] --fence <n>",
		Short: "Exit 0 when you still hold the lease under this fencing number, 1 when not",
		Example: `  fence=$(bb -q lease acquire deploy:staging)
  bb lease check deploy:staging --fence "$fence" && ./deploy.sh`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := leaseName(args, port)
			if err != nil {
				return err
			}
			agent, err := a.taskActor()
			if err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			r, err := svc.CheckLease(cmd.Context(), agent, name, fence)
			if err != nil {
				return err
			}
			if err := a.reply(cmd, r, func(w io.Writer) {
				if r.Held {
					fmt.Fprintf(w, "%s holds %s under fence %d\n", agent, termtext.Line(name), fence)
					return
				}
				fmt.Fprintf(w, "%s does not hold %s under fence %d (%s; latest fence %d)\n", agent, termtext.Line(name), fence, strings.ReplaceAll(r.Reason, "_", " "), r.Latest)
			}); err != nil {
				return err
			}
			if !r.Held {
				return errNotHeld
			}
			return nil
		},
	}, &port)
	c.Flags().Int64Var(&fence, "fence", 0, "the fencing number your grant gave (required)")
	required(c, "fence")
	return c
}
