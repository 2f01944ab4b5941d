#pragma once

#include <string_view>

namespace vesper {

// Checks what SentencePiece trusts in a serialized ModelProto before it is
// handed over: every piece is non-empty and holds no NUL byte. SentencePiece
// builds its piece tries from C strings (strlen), so a piece such as "\0a"
// becomes a zero-length or out-of-order key and the trie builder throws from
// code that cannot unwind to us (std::terminate natively, an abort in WASM).
// Reads only the protobuf wire format; throws Error(kInvalidArgument) with
// the piece's index when a piece is unusable or the framing is malformed.
void CheckModelProto(std::string_view model_proto);

}  // namespace vesper
