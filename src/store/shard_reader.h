/* SPDX-License-Identifier: MIT */
/* A shard file's reader: chunks validated before any byte is exposed
 * (shard_reader.c). */
#ifndef PREC_STORE_SHARD_READER_H
#define PREC_STORE_SHARD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/record_time.h"
#include "store/shard_format.h"

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

/* Where lz4 payloads are read before they are decoded into the reader's
 * own buffer. The bytes live there only within one next(), so the readers
 * of one thread can share one: a merge of hundreds of shards then holds
 * one, grown to the largest stored payload, instead of one per shard (less
 * memory, and a buffer that stays in the cache). */
struct prec_shard_scratch {
	unsigned char *buf;
	uint32_t cap;
};

/* What a reader is asked for at open (NULL or all zero: nothing). */
struct prec_shard_reader_opts {
	/* Bounded memory for the chunks of format 1.0's first writers (up
	 * to PREC_CHUNK_READ_MAX): a DATA chunk stored raw (codec NONE) and
	 * bigger than the buffer (PREC_CHUNK_MAX_PAYLOAD) is then not held
	 * whole. next() reads it once through the buffer, checking its
	 * checksum, then the framing and the count of its records ("bad
	 * record framing"), and hands out its first part: whole records, at
	 * most the buffer's size, with c->more set while parts follow. Every
	 * part is read again and must match the CRC-32C the checking pass
	 * took of it ("chunk changed between reads"), so no byte is exposed
	 * that the chunk checksum did not cover. LZ4 and AUX chunks are
	 * still read whole (one lz4 block cannot be decoded in parts). */
	bool parts;
	/* Judge every record of a chunk in parts in the checking pass,
	 * before its first part is out, as the merge judges the records of
	 * a chunk read whole (prec_record__bad() under *check_records,
	 * copied): the first one refused makes the chunk -EBADMSG, why
	 * "record at +0xOFF (size N): what" (OFF in the raw payload). NULL:
	 * only the framing and the count are checked, and a record no kernel
	 * writes could be handed out. */
	const struct prec_time_layout *check_records;
	/* Read lz4 payloads into this, which must outlive the reader and
	 * not be used by another thread at the same time; NULL: the reader's
	 * own. */
	struct prec_shard_scratch *scratch;
	/* prec_shard_reader__set_two_buffers(r, true) from the start. */
	bool two_buffers;
	/* Use lent_buffers (2 * lent_cap bytes, lent_cap at least
	 * PREC_CHUNK_MAX_PAYLOAD, else the open fails with -EINVAL) as the
	 * two buffers, its halves: a merge of many shards puts every
	 * reader's buffers in one block of huge pages, where each would
	 * otherwise be faulted in 4 KiB at a time. They must outlive the
	 * reader, which never frees them; a chunk bigger than lent_cap still
	 * gets a buffer of the reader's own. */
	void *lent_buffers;
	uint32_t lent_cap;
};

/* Open dirfd/name (dirfd may be AT_FDCWD) and validate the shard header.
 * Only a regular file is opened, never through a symlink, and never a FIFO
 * (whose open would wait for a writer). Returns 0, -EBADMSG (not a shard /
 * corrupt header), -EPROTONOSUPPORT (unknown major version), -EINVAL (not a
 * regular file), -ELOOP (a symbolic link) or -errno. */
int prec_shard_reader__open(struct prec_shard_reader **out, int dirfd,
			    const char *name);
/* The same with opts (NULL: none); on failure *why (if why is not NULL)
 * says why in a few words, a static string: "bad shard magic", "torn shard
 * header", "not a regular file", "is a symbolic link", ... or the errno's
 * text. */
int prec_shard_reader__open_why(struct prec_shard_reader **out, int dirfd,
				const char *name, const struct prec_shard_reader_opts *opts,
				const char **why);

/* Read from memory instead of a file (fuzzers, tests); buf must outlive r. */
int prec_shard_reader__open_mem(struct prec_shard_reader **out,
				const void *buf, size_t len,
				const struct prec_shard_reader_opts *opts);

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

/* The next part of the chunk next() returned with c->more set. Returns 1
 * with *c filled (hdr, offset as for its first part), -EBADMSG, -errno, or
 * -EINVAL when no part is due. prec_shard_reader__offset() stays on the
 * chunk until its last part is out; a next() before that skips the rest. */
int prec_shard_reader__next_part(struct prec_shard_reader *r, struct prec_chunk *c);

/* Offset of the next chunk to read (or of the bad one after an error). */
uint64_t prec_shard_reader__offset(const struct prec_shard_reader *r);

/* The file that offset is in, for a message naming the file that is bad:
 * NULL while in the shard's own file, else the name of the segment file
 * read (a --max-disk shard's "NAME.N", which holds its chunks at their
 * shard offsets), or of the one next() failed to open (a symlink, a FIFO:
 * prec_shard_reader__why() then says so). Valid until the next call on r. */
const char *prec_shard_reader__segment_file(const struct prec_shard_reader *r);

/* Only zeros from off to the end of the file (a crash's preallocated,
 * never written tail)? Asked of the descriptor the reader opened, never of
 * the name again, which someone could have swapped since. Holes are skipped
 * with SEEK_DATA, so a sparse tail costs a few calls. A memory reader
 * checks its bytes. False on a read error. */
bool prec_shard_reader__zeros_from(const struct prec_shard_reader *r, uint64_t off);

/* Short reason for the last -EBADMSG ("bad checksum", "torn chunk"...),
 * or for a segment file next() could not open ("is a symbolic link", "not
 * a regular file"; "" when the errno says it all). */
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

#endif
