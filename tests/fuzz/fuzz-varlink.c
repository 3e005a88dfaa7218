// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary bytes through the framing buffer and the call decoder, as the
 * daemon would read them from a client. The first two bytes choose the
 * message limit (small, to reach the overflow path) and the read size.
 * A call that decodes must survive re-encoding and decoding unchanged. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "varlink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct vl_call *call)
{
	struct vl_call again;
	const char *ename;
	json_object *eparams;
	char *buf;
	size_t len;
	int r = vl_encode_call(call->method, call->params, call->oneway, &buf, &len);

	/* What decoded was UTF-8: a refusal to send it again is a bug. */
	if (r == -EILSEQ)
		abort();
	if (r < 0)
		return;
	if (vl_decode_call(buf, len - 1, &again, &ename, &eparams) < 0)
		abort();
	if (strcmp(again.method, call->method) != 0 || again.oneway != call->oneway ||
	    !json_object_equal(again.params, call->params))
		abort();
	vl_call_done(&again);
	free(buf);
}

static void handle(const char *msg, size_t len)
{
	struct vl_call call;
	const char *ename = NULL;
	json_object *eparams = NULL, *params = NULL;
	char *rname = NULL;
	int r;

	r = vl_decode_call(msg, len, &call, &ename, &eparams);
	if (r == 0) {
		check_round_trip(&call);
		vl_call_done(&call);
	} else if (r == -EINVAL || r == -EBADMSG) {
		if (!ename || !eparams)
			abort();
		json_object_put(eparams);
	}
	r = vl_decode_reply(msg, len, &params, &rname);
	if (r >= 0)
		json_object_put(params);
	free(rname);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vl_buffer *b;
	size_t chunk;
	const char *msg;
	size_t len;
	int r = 0;

	if (size < 2)
		return 0;
	b = vl_buffer_new(data[0] & 1 ? VL_MESSAGE_MAX : 64 + (data[0] >> 1));
	chunk = (size_t)data[1] % 64 + 1;
	data += 2;
	size -= 2;
	while (size > 0 && r >= 0) {
		int n = vl_buffer_feed(b, data, size < chunk ? size : chunk);

		if (n < 0)
			break;
		data += n;
		size -= (size_t)n;
		while ((r = vl_buffer_next(b, &msg, &len)) > 0) {
			if (memchr(msg, 0, len) || len > VL_MESSAGE_MAX)
				abort(); /* framing must hand out whole, bounded messages */
			handle(msg, len);
		}
		if (n == 0 && r == 0)
			abort(); /* full yet nothing to hand out: would stall a client */
	}
	vl_buffer_free(b);
	return 0;
}
