package llm

import "github.com/byomcp/byomcp/agentsvc/chat"

// BytesPerToken is the rate of EstimateTokens: one token per this many bytes.
//
// Tokenizer-free estimates are used when the provider reports no usage for a call: it
// ignores stream_options.include_usage, or the stream ended before its last chunk (the
// visitor stopped the turn, the client went away, the stream was cut, stalled or timed
// out). The byte-pair tokenizers of the usual providers (OpenAI's o200k and cl100k, Llama
// 3, Gemini, Mistral) read about 4 bytes per token of English, 3 of code or JSON and 2 to 3
// of Chinese or Japanese, so counting one token per 2 bytes is above what they bill for
// such text. The prompt is estimated from the request body as sent, JSON syntax included
// (quotes, keys, escapes: more bytes than the provider's chat template adds tokens), and
// tool definitions as JSON Schema (which providers bill in a shorter form). It is not a
// bound for text built of rare symbols, which some tokenizers split into a token per byte,
// nor does it see the tokens a provider generated after a cut that never arrived; the
// prompt's overestimate usually covers the latter.
const BytesPerToken = 2

// EstimateTokens is the estimated token count of n bytes of text: n / BytesPerToken,
// rounded up.
func EstimateTokens(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64((n + BytesPerToken - 1) / BytesPerToken)
}

// estimateOutput is the estimated completion tokens of a stream that delivered bytes of
// text and tool calls in chunks pieces: EstimateTokens of the bytes, and at least one token
// per chunk (providers stream a token or more per chunk).
func estimateOutput(bytes, chunks int) int64 {
	return max(EstimateTokens(bytes), int64(chunks))
}

// estimated is the usage of one attempt that reported none: the prompt's estimate, and
// the output's.
func estimated(prompt, output int64) chat.Usage {
	return chat.Usage{PromptTokens: prompt, CompletionTokens: output, TotalTokens: prompt + output}
}
