/* SPDX-License-Identifier: MIT */
/* prec store: the on-disk directory format shared by record and read.
 * Shard files (header + self-describing chunks), the manifest, the chunk
 * checksum, and the record-timestamp layout. docs/format.md has every byte. */
#ifndef PREC_STORE_H
#define PREC_STORE_H

#include <endian.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

/* ------------------------------------------------------------------------ */
/* Format constants                                                         */

#define PREC_FORMAT_MAJOR 1
#define PREC_FORMAT_MINOR 2

#define PREC_SHARD_MAGIC 0x4452485343455250ULL /* "PRECSHRD" little-endian */
#define PREC_CHUNK_MAGIC 0x4b484350u           /* "PCHK" */

/* Largest raw (decompressed) payload of one chunk a writer emits. Writers
 * split larger drains into several chunks (at record boundaries for data
 * chunks), so a reader's memory per shard is bounded by this whatever the
 * trace size. 64 KiB: a merge holds one chunk per shard at once, so this
 * times the shard count is most of its memory (16 MiB at 256 shards). */
#define PREC_CHUNK_MAX_PAYLOAD (64u * 1024u)

/* Largest raw payload a reader accepts: format 1.0 writers emitted chunks
 * of up to 256 KiB, and those files must stay readable. Readers size their
 * buffers to the chunks they meet, so new files never cost this much. */
#define PREC_CHUNK_READ_MAX (256u * 1024u)

/* Bound on how far a record can lag the watermark of an earlier chunk of the
 * same shard: the kernel writes a record with preemption off, so the gap
 * between taking its timestamp and publishing it in data_head is
 * microseconds; 10 ms is a wide margin. Every record in a chunk after the
 * one carrying watermark W has time >= W - PREC_WATERMARK_SLACK_NS. */
#define PREC_WATERMARK_SLACK_NS 10000000ull
/* A MARKER chunk's watermark when its writer adds no record after it: the
 * side band once synthesized, without --markers (docs/format.md). */
#define PREC_WATERMARK_CLOSED UINT64_MAX

#define PREC_SIDEBAND_CPU (-1)
#define PREC_SHARD_SIDEBAND_NAME "sideband.shard"
#define PREC_MANIFEST_NAME "manifest"
/* --max-disk: the tasks and maps of the window, synthesized again */
#define PREC_CARRY_SHARD_NAME "carry.shard"
#define PREC_CARRY_CPU (-3)
/* The recorder's vDSO image, when the manifest's build-ids list "[vdso]". */
#define PREC_VDSO_NAME "vdso.so"

enum prec_chunk_type {
	PREC_CHUNK_DATA = 1,   /* perf records, whole, in ring order */
	PREC_CHUNK_AUX = 2,    /* raw AUX area bytes starting at aux_offset */
	PREC_CHUNK_MARKER = 3, /* no payload: a round watermark only */
};

enum prec_codec {
	PREC_CODEC_NONE = 0,
	PREC_CODEC_LZ4 = 1,
};

/* On-disk shard file header: 64 bytes at offset 0. */
struct prec_shard_header {
	uint64_t magic;          /* PREC_SHARD_MAGIC */
	uint16_t version_major;  /* PREC_FORMAT_MAJOR; readers refuse others */
	uint16_t version_minor;  /* readers accept any minor */
	uint32_t header_size;    /* 64 */
	int32_t cpu;             /* CPU number, or PREC_SIDEBAND_CPU */
	uint32_t flags;          /* PREC_SHARD_TRIMMED, PREC_SHARD_SEGMENTS */
	uint8_t session_id[16];  /* equals the manifest's */
	uint64_t created_ns;     /* CLOCK_REALTIME at creation */
	uint64_t first_chunk;    /* TRIMMED: offset of the first chunk kept; else 0 */
	uint32_t first_seq;      /* TRIMMED: its seq; else 0 */
	uint32_t checksum;       /* crc32c of the 60 bytes before it */
};
/* --max-disk dropped the shard's oldest chunks (punched out of the file):
 * chunks start at first_chunk, numbered from first_seq (format 1.1). */
#define PREC_SHARD_TRIMMED 1u
/* --max-disk wrote the shard in segment files: its chunks go on, at their
 * shard offsets, in the files "NAME.1", "NAME.2", ..., each from where the
 * chunks of the one before end (format 1.2; docs/format.md). */
#define PREC_SHARD_SEGMENTS 2u
_Static_assert(sizeof(struct prec_shard_header) == 64, "shard header is 64 bytes");

/* On-disk chunk header: 64 bytes, followed by payload_len bytes. Chunks
 * follow each other with no padding. */
struct prec_chunk_header {
	uint32_t magic;        /* PREC_CHUNK_MAGIC */
	uint8_t type;          /* enum prec_chunk_type */
	uint8_t codec;         /* enum prec_codec */
	uint16_t header_size;  /* 64 */
	uint32_t payload_len;  /* bytes stored after this header */
	uint32_t raw_len;      /* bytes after decoding; == payload_len for NONE */
	uint32_t records;      /* perf records in the payload (DATA), else 0 */
	uint32_t seq;          /* 0, 1, 2 ... per shard: a gap is a lost chunk */
	uint64_t first_time;   /* smallest record timestamp, 0 if none */
	uint64_t last_time;    /* largest record timestamp, 0 if none */
	uint64_t watermark;    /* event-clock time taken before data_head was read */
	uint64_t aux_offset;   /* AUX: position of the first byte in the AUX stream */
	uint32_t flags;        /* AUX: PERF_AUX_FLAG_* seen for these bytes */
	uint32_t checksum;     /* crc32c of the header (this field as 0) + payload */
};
_Static_assert(sizeof(struct prec_chunk_header) == 64, "chunk header is 64 bytes");
#define PREC_CHUNK_HDR_SIZE ((uint32_t)sizeof(struct prec_chunk_header))

/* ------------------------------------------------------------------------ */
/* Checksum                                                                 */

/* CRC-32C (Castagnoli). Pass 0 to start; chain by passing the previous
 * result. Uses the SSE4.2 instruction when the CPU has it. Thread-safe. */
uint32_t prec_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same over src, which it also copies to dst (not overlapping): what a
 * memcpy then prec_crc32c(crc, dst, len) give, in one pass. */
uint32_t prec_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);

/* ------------------------------------------------------------------------ */
/* Record timestamps                                                        */

/* Where the timestamp sits in a record. prec gives every attr the same
 * IP|TID|TIME|CPU|IDENTIFIER base and never ID/STREAM_ID, so this is one
 * layout per recording, stored in the manifest:
 *   SAMPLE:      time at byte sample_time_off from the record start;
 *   other <64:   time at byte (size - trailer_time_back).              */
struct prec_time_layout {
	uint16_t sample_time_off;   /* 32 for IDENTIFIER|IP|TID|TIME */
	uint16_t trailer_time_back; /* 24 for TIME|CPU|IDENTIFIER trailer */
};

/* Derive the layout from an attr sample_type. Returns 0, or -EINVAL when the
 * sample_type lacks TIME or IDENTIFIER or has ID/STREAM_ID. */
int prec_time_layout__init(struct prec_time_layout *tl, uint64_t sample_type);

/* Timestamp of one record (rec points at its perf_event_header; size is
 * header.size, already checked >= 8 and within the buffer). Returns 0 for
 * records with no time (user types >= 64, or too short to hold one). */
uint64_t prec_time_layout__time(const struct prec_time_layout *tl,
				const void *rec, uint32_t size);

/* Bytes of the sample_id trailer sample_type gives a non-SAMPLE record. */
uint32_t prec_record__trailer_size(uint64_t sample_type);

/* A KSYMBOL or BPF_EVENT record's real size when the kernel's header says
 * more (see record_size.c), else size. */
uint16_t prec_record__sb_size(const uint8_t *p, uint16_t size, uint32_t trailer);

/* The size a record's bytes really have: its header's, but for those two
 * types. Inline: the merge asks for every record. */
static inline uint16_t prec_record__size(const uint8_t *p, uint16_t size, uint32_t trailer)
{
	uint32_t type;

	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (__builtin_expect(type == 17 || type == 18, 0)) /* KSYMBOL, BPF_EVENT */
		return prec_record__sb_size(p, size, trailer);
	return size;
}

/* What is wrong with the record at p (left bytes to the end of its chunk):
 * a header cut short, a size under 8 or past the chunk, a type no kernel
 * writes (0, or perf's own from 64 up, which live only in perf.data), a
 * SAMPLE too short to hold its time under tl; NULL if nothing. *size is its
 * size (0 if unreadable). The merge's cursors (which refuse to hand such a
 * record on), the shard reader's chunks in parts and info --check (which
 * reports it) judge alike. Inline: the cursors ask for every record. */
static inline const char *prec_record__bad(const struct prec_time_layout *tl,
					   const uint8_t *p, uint32_t left, uint16_t *size)
{
	uint32_t type;

	*size = 0;
	if (left < 8)
		return "header cut short";
	memcpy(size, p + 6, sizeof(*size));
	*size = le16toh(*size);
	if (*size < 8 || *size > left)
		return "bad size";
	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (type - 1u >= 63u)
		return "not a kernel record type";
	if (type == 9 /* SAMPLE */ && *size < tl->sample_time_off + 8u)
		return "SAMPLE too short for its fields";
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Shard writer                                                             */

struct prec_shard_writer;

struct prec_shard_writer_opts {
	int32_t cpu;                /* or PREC_SIDEBAND_CPU */
	uint8_t session_id[16];
	unsigned int queue_depth;   /* chunks in flight; 0 = 256 */
	size_t batch_bytes;         /* coalesce appends up to this; 0 = 1 MiB */
	/* Copy mode: append() copies the payload into writer-owned staging
	 * buffers (staging_bytes in all, 0 = 8 MiB), so the caller's memory is
	 * free as soon as append() returns. Without it the payload memory must
	 * stay untouched until the chunk's ticket is done. */
	bool copy;
	size_t staging_bytes;
	/* O_DIRECT: the staging doubles, up to this, whenever a write that
	 * stalls leaves it full, so the drainer goes on draining the ring
	 * (the page cache does that for buffered writes); 0 = never grows */
	size_t staging_max;
	/* Copy mode: write past the page cache (O_DIRECT) where the file
	 * system takes it, buffered where not; no copy into page cache pages
	 * (bench/record.sh compares the two). */
	bool direct;
	enum prec_codec codec;      /* NONE; LZ4 implies copy */
	int lz4_level;              /* 0 = fast; > 0 = LZ4 HC level */
	/* --max-disk: the shard joins this budget, which drops its oldest
	 * chunks when the recording passes it (disk_budget.c); NULL: none */
	struct prec_disk_budget *budget;
};

/* Per-chunk description given to append(); the writer fills magic, sizes,
 * seq and checksum. */
struct prec_chunk_meta {
	enum prec_chunk_type type;
	uint32_t records;
	uint64_t first_time, last_time, watermark;
	uint64_t aux_offset;
	uint32_t flags;
};

struct prec_shard_writer_stats {
	uint64_t chunks, records, payload_bytes, file_bytes, raw_bytes;
	uint64_t first_time, last_time;
	uint64_t wait_ns_max; /* longest an append() waited for room */
	uint64_t staging_grown; /* O_DIRECT staging grown to this; 0: never */
};

/* Create dirfd/name (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600), write
 * the shard header, set up the writer's own io_uring. Returns 0 or -errno.
 * The writer is used by one thread at a time. */
int prec_shard_writer__open(struct prec_shard_writer **out, int dirfd,
			    const char *name,
			    const struct prec_shard_writer_opts *opts);

/* Queue one chunk whose payload is the concatenation of nspan spans (0..2
 * for a wrapped ring; total <= PREC_CHUNK_MAX_PAYLOAD). Consecutive appends
 * are batched into one pwritev of up to batch_bytes, submitted when the
 * batch is full or at the next done/wait/sleep/flush. Blocks only while
 * every queue slot (or staging byte) is in use. Returns a ticket (> 0) that
 * done() reaches once the chunk is in the file, or -errno; after an error
 * (ENOSPC, EIO...) every later call fails with the same error and the file
 * holds every chunk before the failed one, whole. */
int64_t prec_shard_writer__append(struct prec_shard_writer *w,
				  const struct prec_chunk_meta *meta,
				  const struct iovec *span, int nspan);

/* Highest ticket such that it and every earlier ticket are in the file (or,
 * in copy mode, copied to staging). Reaps completions without blocking. */
int64_t prec_shard_writer__done(struct prec_shard_writer *w);

/* Block until ticket is done. Returns 0 or the writer's -errno. */
int prec_shard_writer__wait(struct prec_shard_writer *w, int64_t ticket);

/* Sleep in the writer's io_uring until one of fds[0..nfds) is readable
 * (POLLIN), timeout_ns passes, or a signal arrives, reaping write
 * completions meanwhile. Lets a drainer have one io_uring for its writes
 * and its wake-ups (the perf fd, and an eventfd that asks it to stop).
 * Polls stay armed across calls, so a readiness is never missed between
 * two calls. Returns a bit mask of the readable fds (bit i = fds[i]; 0 on
 * timeout or signal), or -errno. nfds <= 8; nfds == 0 only sleeps. */
int prec_shard_writer__sleep(struct prec_shard_writer *w, const int *fds,
			     int nfds, uint64_t timeout_ns);

/* Wait for every chunk, fsync: nothing to do (0) when no chunk came since
 * the last flush that returned 0. Returns 0 or -errno. */
int prec_shard_writer__flush(struct prec_shard_writer *w);

/* Does the writer write past the page cache (opts.direct, and the file
 * system took O_DIRECT)? */
bool prec_shard_writer__direct(const struct prec_shard_writer *w);

/* Totals of the chunks that are done (with a budget: of those kept). */
void prec_shard_writer__stats(const struct prec_shard_writer *w,
			      struct prec_shard_writer_stats *st);

/* First error seen, 0 if none. */
int prec_shard_writer__error(const struct prec_shard_writer *w);

/* flush() then close the file and the ring; NULL and half-open writers are
 * fine. Returns 0 or the first -errno seen during the writer's life. */
int prec_shard_writer__close(struct prec_shard_writer *w);

/* The calling thread is the one that writes from now on: it does what is
 * best done there (O_DIRECT: pins the staging, from this thread's CPU and
 * its memory). Call it once the thread runs where it stays; the first
 * append() does it otherwise. */
void prec_shard_writer__adopt(struct prec_shard_writer *w);

/* Run the io_uring workers that carry out the calling thread's writes on
 * these CPUs (IORING_REGISTER_IOWQ_AFF). Returns 0 or -errno. */
int prec_shard_writer__worker_cpus(struct prec_shard_writer *w,
				   const cpu_set_t *cpus);

/* ------------------------------------------------------------------------ */
/* Disk budget (--max-disk)                                                 */

/* The bytes a recording may hold on disk, shared by its CPU shards'
 * writers: each appended chunk is counted, and the append that takes the
 * total past the limit drops whole segments (runs of about segment()
 * bytes of chunks, in the file's order) of the shard whose next segment is
 * oldest, until the total is back under it: the shard header is rewritten
 * to start after it, and the segment's file unlinked (O_DIRECT shards,
 * written in segment files) or its range punched out of the shard's one
 * file (FALLOC_FL_PUNCH_HOLE). Thread-safe: the counting is atomic, the dropping holds a lock
 * (once per segment, never per record). docs/format.md, "Trimmed shards". */
struct prec_disk_budget;

struct prec_disk_budget_stats {
	uint64_t limit, segment;     /* as made */
	uint64_t used;               /* counted now: chunks kept + fixed */
	uint64_t segments, chunks, records, bytes; /* dropped (bytes: on disk) */
	uint64_t first_time, last_time; /* of the records dropped, 0 if none */
	uint64_t stuck;              /* appends over the limit with nothing droppable */
	uint64_t backstops;          /* appends that dropped (the trimmer was late) */
	uint64_t backstop_ns_max;    /* the longest such append's drops took */
	uint64_t punch_ns, punch_ns_max; /* header rewrites and punches, total and longest */
	/* the latest of the shards' first kept times (where every shard has
	 * data), and the latest chunk time seen: the window now */
	uint64_t window, latest;
};

/* limit bytes for nr_shards shards; segments of limit / (8 * nr_shards),
 * at least PREC_DISK_SEGMENT_MIN. Returns 0, -EINVAL (limit 0 or
 * nr_shards 0) or -ENOMEM. */
#define PREC_DISK_SEGMENT_MIN (256u * 1024u)
int prec_disk_budget__new(struct prec_disk_budget **out, uint64_t limit,
			  uint32_t nr_shards);
/* No more drops by the trimmer thread (joined, its drop in flight done):
 * before the writers' totals are taken at the stop, which then hold. */
void prec_disk_budget__stop(struct prec_disk_budget *b);
/* After every shard writer that joined it is closed; NULL is fine. */
void prec_disk_budget__delete(struct prec_disk_budget *b);
/* Bytes the budget counts beside the shards (side band, carry, manifest):
 * replaces the previous figure. Any thread. */
void prec_disk_budget__set_fixed(struct prec_disk_budget *b, uint64_t bytes);
void prec_disk_budget__stats(struct prec_disk_budget *b,
			     struct prec_disk_budget_stats *st);
/* Run the budget's trimmer thread (which drops from a little below the
 * limit, so that appends seldom have to) SCHED_FIFO at prio, as the
 * drainers whose appends it spares. Returns 0 or -errno. */
int prec_disk_budget__fifo(struct prec_disk_budget *b, int prio);

/* ------------------------------------------------------------------------ */
/* Shard reader                                                             */

struct prec_shard_reader;

struct prec_chunk {
	struct prec_chunk_header hdr; /* validated copy */
	uint64_t offset;              /* file offset of the chunk header */
	void *payload;                /* raw (decoded) bytes, len long, the
				       * reader's own copy (the caller may fix
				       * bytes in it); valid until the next
				       * next(), next_part() or close() */
	uint32_t len;                 /* == hdr.raw_len, or this part's length */
	uint32_t part_off;            /* where payload is in the raw bytes: 0
				       * unless the chunk comes in parts */
	bool more;                    /* parts follow: prec_shard_reader__next_part() */
};

/* Open dirfd/name (dirfd may be AT_FDCWD) and validate the shard header.
 * Only a regular file is opened, never through a symlink, and never a FIFO
 * (whose open would wait for a writer). Returns 0, -EBADMSG (not a shard /
 * corrupt header), -EPROTONOSUPPORT (unknown major version), -EINVAL (not a
 * regular file), -ELOOP (a symbolic link) or -errno. */
int prec_shard_reader__open(struct prec_shard_reader **out, int dirfd,
			    const char *name);
/* The same; on failure *why (if why is not NULL) says why in a few words,
 * a static string: "bad shard magic", "torn shard header", "not a regular
 * file", "is a symbolic link", ... or the errno's text. */
int prec_shard_reader__open_why(struct prec_shard_reader **out, int dirfd,
				const char *name, const char **why);

/* Read from memory instead of a file (fuzzers, tests); buf must outlive r. */
int prec_shard_reader__open_mem(struct prec_shard_reader **out,
				const void *buf, size_t len);

const struct prec_shard_header *
prec_shard_reader__header(const struct prec_shard_reader *r);

/* Next chunk. Returns 1 with *c filled, 0 at a clean end of file, or
 * -EBADMSG when the chunk at prec_shard_reader__offset() is torn or corrupt
 * (every earlier chunk was returned whole); -errno on I/O errors. After an
 * error the reader stays at that offset and keeps returning it. Validates
 * magic, sizes and checksum before exposing any byte; never reads outside
 * the file. Memory: one buffer as big as the largest raw payload met so far
 * (PREC_CHUNK_MAX_PAYLOAD from the start, up to PREC_CHUNK_READ_MAX), plus
 * one for the largest stored lz4 payload once one is met; grown only when a
 * chunk is bigger than the buffer, never shrunk. */
int prec_shard_reader__next(struct prec_shard_reader *r, struct prec_chunk *c);

/* Bounded memory for the chunks of format 1.0's first writers (up to
 * PREC_CHUNK_READ_MAX) when on: a DATA chunk stored raw (codec NONE) and
 * bigger than the buffer (PREC_CHUNK_MAX_PAYLOAD) is then not held whole.
 * next() reads it once through the buffer, checking its checksum, then the
 * framing and the count of its records ("bad record framing"), and hands
 * out its first part: whole records, at most the buffer's size, with
 * c->more set while parts follow. Every part is read again and must match
 * the CRC-32C the checking pass took of it ("chunk changed between reads"),
 * so no byte is exposed that the chunk checksum did not cover. LZ4 and AUX
 * chunks are still read whole (one lz4 block cannot be decoded in parts).
 * Off by default. */
void prec_shard_reader__set_parts(struct prec_shard_reader *r, bool on);

/* Judge every record of a chunk in parts in the checking pass, before its
 * first part is out, as the merge judges the records of a chunk read whole
 * (prec_record__bad() under *tl, copied): the first one refused makes the
 * chunk -EBADMSG, why "record at +0xOFF (size N): what" (OFF in the raw
 * payload). Without it only the framing and the count are checked, and a
 * record no kernel writes could be handed out. */
void prec_shard_reader__check_records(struct prec_shard_reader *r,
				      const struct prec_time_layout *tl);

/* Where lz4 payloads are read before they are decoded into the reader's
 * own buffer. The bytes live there only within one next(), so the readers
 * of one thread can share one: a merge of hundreds of shards then holds
 * one, grown to the largest stored payload, instead of one per shard (less
 * memory, and a buffer that stays in the cache). */
struct prec_shard_scratch {
	unsigned char *buf;
	uint32_t cap;
};

/* Read lz4 payloads into s, which must outlive the reader and not be used
 * by another thread at the same time; NULL: the reader's own again. */
void prec_shard_reader__share_scratch(struct prec_shard_reader *r,
				      struct prec_shard_scratch *s);
/* Free a shared scratch once no reader uses it. */
void prec_shard_scratch__release(struct prec_shard_scratch *s);

/* Two raw buffers, used in turn: the payload of a next() or next_part()
 * then stays valid until the second call after it, so a caller may keep
 * some of a chunk's records where they are while it reads the next one.
 * On allocates the second buffer (PREC_CHUNK_MAX_PAYLOAD): 0 or -ENOMEM.
 * Off frees it at once: the caller must hold nothing of the payload before
 * the last one. (Chunks read whole grow the buffer they land in, so with
 * old big lz4 chunks two buffers would cost twice 256 KiB.) */
int prec_shard_reader__set_two_buffers(struct prec_shard_reader *r, bool on);

/* Use mem (2 * cap bytes, cap at least PREC_CHUNK_MAX_PAYLOAD) as the two
 * buffers, its halves, in place of the reader's own, which are freed: a merge of many
 * shards puts every reader's buffers in one block of huge pages, where each
 * would otherwise be faulted in 4 KiB at a time. They must outlive the
 * reader, which never frees them; a chunk bigger than cap still gets a
 * buffer of the reader's own. Returns 0, or -EINVAL (cap too small). */
int prec_shard_reader__lend_buffers(struct prec_shard_reader *r, void *mem, uint32_t cap);

/* The next part of the chunk next() returned with c->more set. Returns 1
 * with *c filled (hdr, offset as for its first part), -EBADMSG, -errno, or
 * -EINVAL when no part is due. prec_shard_reader__offset() stays on the
 * chunk until its last part is out; a next() before that skips the rest. */
int prec_shard_reader__next_part(struct prec_shard_reader *r, struct prec_chunk *c);

/* Offset of the next chunk to read (or of the bad one after an error). */
uint64_t prec_shard_reader__offset(const struct prec_shard_reader *r);

/* Only zeros from off to the end of the file (a crash's preallocated,
 * never written tail)? Asked of the descriptor the reader opened, never of
 * the name again, which someone could have swapped since. Holes are skipped
 * with SEEK_DATA, so a sparse tail costs a few calls. A memory reader
 * checks its bytes. False on a read error. */
bool prec_shard_reader__zeros_from(const struct prec_shard_reader *r, uint64_t off);

/* Short reason for the last -EBADMSG ("bad checksum", "torn chunk"...). */
const char *prec_shard_reader__why(const struct prec_shard_reader *r);

/* After -EBADMSG from next() on a shard a recorder is still writing (the
 * chunk at the offset is being written): forget the error, so that the
 * next call reads that chunk again, from the file, into the buffer it
 * would have used. Any other sticky error stays. */
void prec_shard_reader__retry(struct prec_shard_reader *r);

/* After -EBADMSG or the end from next(): whether --max-disk dropped the
 * chunks at the reader's offset since it got there (the shard's header,
 * read again, starts it further on). If so, 1: the error is forgotten and
 * the next call reads the first chunk kept. Else 0, nothing changed. */
int prec_shard_reader__skip_trimmed(struct prec_shard_reader *r);

void prec_shard_reader__close(struct prec_shard_reader *r);

/* ------------------------------------------------------------------------ */
/* Manifest                                                                 */

enum prec_manifest_state {
	PREC_STATE_RECORDING = 1, /* written at start; recorder still running or died */
	PREC_STATE_COMPLETE = 2,  /* replaced at close */
};

struct prec_manifest_event {
	uint8_t attr[128];     /* struct perf_event_attr as opened (size 128) */
	char *name;            /* as the user wrote it, e.g. "sched:sched_switch" */
	uint32_t nr_ids;
	uint64_t *ids;         /* PERF_EVENT_IOC_ID of each fd */
	int32_t *id_cpus;      /* CPU of each id (-1 if per-task on any CPU) */
	int32_t *id_tids;      /* tid of each id (-1 if per-CPU) */
	/* its group's leader as an index of events[] + 1 (a leader: its
	 * own), 0 in no group: opened with the leader's fd as group_fd */
	uint32_t leader1;
};

struct prec_manifest_tracepoint {
	char *system, *name;   /* "sched", "sched_switch" */
	uint64_t id;           /* tracefs id (attr.config) */
	char *format;          /* text of events/<system>/<name>/format */
};

struct prec_manifest_shard {
	char *name;            /* "cpu000.shard", "sideband.shard" */
	int32_t cpu;
	uint64_t chunks, records, bytes;  /* bytes = payload bytes stored */
	uint64_t raw_bytes;               /* decoded payload bytes */
	uint64_t lost;                    /* records lost (LOST records sum) */
	uint64_t lost_samples;            /* LOST_SAMPLES sum + PERF_FORMAT_LOST */
	uint64_t first_time, last_time;
};

struct prec_manifest_buildid {
	uint16_t cpumode;      /* PERF_RECORD_MISC_KERNEL / _USER ... */
	uint8_t size;          /* bytes used in id[] (<= 20) */
	int32_t pid;           /* -1 = host */
	uint8_t id[20];
	char *path;
};

/* The TSC <-> perf clock conversion a perf ring's control page publishes
 * (struct perf_event_mmap_page time_* words), as perf's TIME_CONV record
 * carries it. */
struct prec_time_conv {
	uint64_t time_zero;
	uint64_t time_cycles;   /* with cap_user_time_short: the counter ... */
	uint64_t time_mask;     /* ... is this narrow, and wraps */
	uint32_t time_mult;
	uint16_t time_shift;
	bool cap_user_time_zero; /* the words convert to the perf clock */
	bool cap_user_time_short;
};

struct prec_manifest_cpu {
	int32_t core_id, socket_id, die_id;
};

/* A manifest holds metadata only; anything bigger is not one of ours, and
 * reading it whole would let a hostile file exhaust memory: readers refuse
 * it (-EFBIG) and the writer never writes one. */
#define PREC_MANIFEST_MAX_SIZE (256u << 20)
/* The build-id table's bounds (docs/manifest-format.md, BUILDIDS): a
 * workload mapping endless distinct paths cannot grow the manifest past
 * what readers take. Mapped files (user paths): at most this many entries
 * and path bytes (NULs included); the other entries (kernel, modules,
 * [vdso]) have PREC_MANIFEST_BUILDIDS_OTHER more of their own. No path of
 * PREC_MANIFEST_BUILDID_PATH_MAX bytes or more (perf's PATH_MAX). */
#define PREC_MANIFEST_BUILDIDS_MAX 65536u
#define PREC_MANIFEST_BUILDID_BYTES_MAX (32u << 20)
#define PREC_MANIFEST_BUILDIDS_OTHER 8192u
#define PREC_MANIFEST_BUILDID_PATH_MAX 4096u

struct prec_manifest_buildid_index;

struct prec_manifest {
	uint32_t state;                   /* enum prec_manifest_state */
	uint8_t session_id[16];
	/* host facts */
	char *hostname, *os_release, *arch, *cpu_desc, *cpu_id, *version;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	struct prec_manifest_cpu *cpus;   /* nr_cpus_avail entries, or NULL */
	/* the recording */
	uint32_t argc;
	char **argv;                      /* prec's own command line */
	int32_t clockid;                  /* -1: perf clock */
	uint64_t clock_res_ns;
	uint64_t ref_wall_ns, ref_clock_ns; /* one instant on both clocks */
	uint64_t start_time, stop_time;   /* event clock */
	uint64_t sample_type;             /* common base of all attrs */
	struct prec_time_layout time_layout;
	uint32_t nr_events;
	struct prec_manifest_event *events;
	/* tracing */
	uint32_t nr_tracepoints;
	struct prec_manifest_tracepoint *tracepoints;
	char *header_page, *header_event, *printk_formats, *saved_cmdlines;
	/* totals */
	uint32_t nr_shards;
	struct prec_manifest_shard *shards;
	uint32_t nr_buildids;
	struct prec_manifest_buildid *buildids;
	/* mapped files that got no entry because they could not be read as
	 * the file mapped: path replaced since, read failed, no answer in
	 * time (deleted files are not counted) */
	uint32_t buildids_unread;
	/* (path, build-id) pairs not put in the table: over its bounds (the
	 * BUILDID_DROPS section, minor 3; 0 in older manifests) */
	uint32_t buildids_dropped;
	/* add_buildid()'s hash of the table and its sizes; rebuilt when the
	 * table was filled another way (decode). Not encoded. */
	struct prec_manifest_buildid_index *bid_index;
	/* AUX: PMU-specific AUXTRACE_INFO */
	uint32_t auxtrace_type;
	uint32_t nr_auxtrace_priv;
	uint64_t *auxtrace_priv;
	/* the first ring's TSC conversion; the TIME_CONV section (and
	 * record) exists only when time_conv.cap_user_time_zero */
	struct prec_time_conv time_conv;
	/* --max-disk: the budget (0: none), its segment size, and what it
	 * dropped: whole segments of CPU shards, their chunks, records and
	 * bytes, the first and last time of those records (0: none) */
	struct prec_manifest_max_disk {
		uint64_t limit, segment;
		uint64_t segments, chunks, records, bytes;
		uint64_t first_time, last_time;
	} max_disk;
};

/* All strings and arrays of a manifest are owned by it and freed by
 * delete(). The add_* helpers copy their arguments and return 0 or -ENOMEM. */
struct prec_manifest *prec_manifest__new(void);
void prec_manifest__delete(struct prec_manifest *m);

/* Replace *field (one of m's char * members) with a copy of s (NULL ok). */
int prec_manifest__set_str(struct prec_manifest *m, char **field, const char *s);
int prec_manifest__set_argv(struct prec_manifest *m, int argc, char *const argv[]);
/* Returns the new event's index, or -ENOMEM. */
int prec_manifest__add_event(struct prec_manifest *m, const void *attr128,
			     const char *name);
int prec_manifest__add_event_id(struct prec_manifest *m, uint32_t event,
				uint64_t id, int32_t cpu, int32_t tid);
int prec_manifest__add_tracepoint(struct prec_manifest *m, const char *system,
				  const char *name, uint64_t id,
				  const char *format);
int prec_manifest__add_shard(struct prec_manifest *m,
			     const struct prec_manifest_shard *s);
/* Adds unless an entry with the same id and path exists (a hashed look-up:
 * adding n entries costs O(n)). An entry past the table's bounds (above)
 * is counted in buildids_dropped and not added: 0 all the same. Returns 0,
 * -EINVAL or -ENOMEM. */
int prec_manifest__add_buildid(struct prec_manifest *m,
			       const struct prec_manifest_buildid *b);
/* Empty the build-id table (perf record -B: a recording without one). */
void prec_manifest__clear_buildids(struct prec_manifest *m);
/* Whether an entry for path exists (any id), hashed as add_buildid().
 * Returns 1, 0, or -ENOMEM (the index could not be built). */
int prec_manifest__has_buildid(struct prec_manifest *m, const char *path);

/* Serialize to a malloc'd buffer. Returns 0 or -errno. */
int prec_manifest__encode(const struct prec_manifest *m, void **buf,
			  size_t *len);
/* Parse a buffer. Returns 0, -EBADMSG (corrupt, truncated, bad checksum,
 * inconsistent contents as prec_manifest__check() finds them; *why says
 * what), -EPROTONOSUPPORT (unknown major version). Never reads outside buf,
 * never allocates more than a small multiple of len. */
int prec_manifest__decode(struct prec_manifest **out, const void *buf,
			  size_t len, const char **why);
/* Whether m is what prec writes (docs/manifest-format.md, "Consistency"):
 * at least one event; every attr has the session's sample_type base and
 * at least one id; no id twice; the time layout follows from the session's
 * sample_type; shard names are plain file names (no '/', not ".", ".." or
 * "manifest"), no name or cpu twice. Returns 0, -EBADMSG with *why (a
 * static string), or -ENOMEM. decode() calls it. */
int prec_manifest__check(const struct prec_manifest *m, const char **why);

/* Atomically (re)write dirfd/manifest: temp file, fsync, rename, fsync dir. */
int prec_manifest__write(const struct prec_manifest *m, int dirfd);
/* Read and decode dirfd/manifest; *why as for decode (or strerror text). */
int prec_manifest__read(struct prec_manifest **out, int dirfd,
			const char **why);

/* ------------------------------------------------------------------------ */
/* The writer's lock (writer_lock.c)                                        */

/* The recorder: hold flock(LOCK_EX) on the recording directory dirfd until
 * the descriptor (and every copy a fork made) is closed, the process's end
 * included, however it ends. Taken before the start manifest is written.
 * Returns 0 or -errno (a file system without flock: readers cannot tell). */
int prec_writer_lock__take(int dirfd);

/* A reader: does a recorder hold dirfd's lock? 1 yes, 0 no (none runs:
 * it finished or died), -errno when the file system cannot say. Never
 * blocks; takes no lock that outlives the call. */
int prec_writer_lock__held(int dirfd);

/* Print m as one JSON object (for `prec info --json`): every field; strings
 * escaped (invalid UTF-8 bytes as \u00XX), absent strings as null, session
 * and build-ids in hex, attrs as their key fields plus the 128 bytes in hex.
 * Returns 0, or -EIO when writing to f failed. */
int prec_manifest__print_json(const struct prec_manifest *m, FILE *f);

#endif
