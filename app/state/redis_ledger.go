package state

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisLedger is the Ledger several replicas share: per PR, a sorted set
// of heads scored by their time and a hash of the last edit of each
// comment or review, both expiring after ledgerTTL without a write.
type RedisLedger struct{ r *Redis }

// ledgerTTL is how long a PR's record outlives its last event: longer
// than a PR stays open and signed-off in practice.
const ledgerTTL = 120 * 24 * time.Hour

// Ledger returns the shared Ledger.
func (r *Redis) Ledger() *RedisLedger { return &RedisLedger{r: r} }

// RecordHead implements Ledger.
func (l *RedisLedger) RecordHead(ctx context.Context, pr, sha string, at time.Time) error {
	key := l.r.key("heads:", pr)
	ms := at.UnixMilli()
	return l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		_, err := l.r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			// A head can come back (a force push to an older commit), so
			// the member carries its time too.
			p.ZAdd(ctx, key, redis.Z{Score: float64(ms), Member: strconv.FormatInt(ms, 10) + ":" + sha})
			p.ZRemRangeByRank(ctx, key, 0, -maxHeadsPerPR-1)
			p.Expire(ctx, key, ledgerTTL)
			return nil
		})
		return err
	})
}

// HeadAt implements Ledger.
func (l *RedisLedger) HeadAt(ctx context.Context, pr string, at time.Time) (string, bool, error) {
	var sha string
	err := l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		ms, err := l.r.client.ZRangeArgs(ctx, redis.ZRangeArgs{Key: l.r.key("heads:", pr), ByScore: true, Rev: true,
			Start: strconv.FormatInt(at.UnixMilli(), 10), Stop: "-inf", Count: 1}).Result()
		if err != nil || len(ms) == 0 {
			return err
		}
		_, sha, _ = strings.Cut(ms[0], ":")
		return nil
	})
	return sha, sha != "", err
}

// Newest implements Ledger.
func (l *RedisLedger) Newest(ctx context.Context, pr string) (string, bool, error) {
	var sha string
	err := l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		ms, err := l.r.client.ZRange(ctx, l.r.key("heads:", pr), -1, -1).Result()
		if err != nil || len(ms) == 0 {
			return err
		}
		_, sha, _ = strings.Cut(ms[0], ":")
		return nil
	})
	return sha, sha != "", err
}

// RecordEdit implements Ledger.
func (l *RedisLedger) RecordEdit(ctx context.Context, pr, object, editor string, at time.Time) error {
	key := l.r.key("edits:", pr)
	return l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		_, err := l.r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, object, editor+"\x1f"+strconv.FormatInt(at.UnixMilli(), 10))
			p.Expire(ctx, key, ledgerTTL)
			return nil
		})
		return err
	})
}

// LastEdit implements Ledger.
func (l *RedisLedger) LastEdit(ctx context.Context, pr, object string) (Edit, bool, error) {
	var e Edit
	var found bool
	err := l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		v, err := l.r.client.HGet(ctx, l.r.key("edits:", pr), object).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			return err
		}
		editor, ms, ok := strings.Cut(v, "\x1f")
		n, perr := strconv.ParseInt(ms, 10, 64)
		if !ok || perr != nil {
			return nil // not written by this code: no record
		}
		e, found = Edit{Editor: editor, At: time.UnixMilli(n)}, true
		return nil
	})
	return e, found, err
}

// RecordVerdict implements Ledger.
func (l *RedisLedger) RecordVerdict(ctx context.Context, pr, sha, signoff string) error {
	key := l.r.key("verdicts:", pr)
	return l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		if signoff == "" {
			return l.r.client.HDel(ctx, key, sha).Err()
		}
		n, err := l.r.client.HLen(ctx, key).Result()
		if err != nil {
			return err
		}
		if n >= maxHeadsPerPR {
			if ok, err := l.r.client.HExists(ctx, key, sha).Result(); err != nil || !ok {
				return err // bounded like the heads; the comment still says it
			}
		}
		_, err = l.r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, sha, signoff)
			p.Expire(ctx, key, ledgerTTL)
			return nil
		})
		return err
	})
}

// Verdicts implements Ledger.
func (l *RedisLedger) Verdicts(ctx context.Context, pr string) (map[string]string, error) {
	var out map[string]string
	err := l.r.do(ctx, "ledger", l.r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		out, err = l.r.client.HGetAll(ctx, l.r.key("verdicts:", pr)).Result()
		return err
	})
	return out, err
}

var _ Ledger = (*RedisLedger)(nil)
