package agentsvc

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// What a page's site (Config.Sites, agentsvc/sites) changes in the agent: the model, the
// instructions, the turn guards, the token budget, the confirm policy and the server tools.

// site returns the site of a page Origin; nil (no site: the settings of Config) when there
// is none or no Config.Sites. The methods of *sites.Site take nil.
func (s *Server) site(origin string) *sites.Site {
	if s.cfg.Sites == nil {
		return nil
	}
	return s.cfg.Sites(origin)
}

// admitSite checks the token budget of a page's site before a turn of session id: over it,
// the turn is refused with wire.CodeOverBudget and a message for the visitor.
func (s *Server) admitSite(origin, id string) error {
	if err := s.site(origin).Admit(id); err != nil {
		var be *sites.BudgetError
		if errors.As(err, &be) {
			return wsrpc.NewError(wire.CodeOverBudget, be.Error())
		}
		return err
	}
	return nil
}

// siteTurn returns what a turn of session id on a page of origin runs with: the site's
// model (metered, and checked against its budget before each call), instructions and
// guards, or the server's.
func (s *Server) siteTurn(origin, id string, page store.Page) (llm.Model, string, loop.Limits) {
	site := s.site(origin)
	lim := s.cfg.Limits
	if mm, mt := site.Guards(); mm > 0 || mt > 0 {
		if mm > 0 {
			lim.MaxModelCalls = mm
		}
		if mt > 0 {
			lim.MaxToolCalls = mt
		}
	}
	prompt := site.SystemPrompt(s.systemPrompt(page))
	if site.OwnPrompt() { // told the page as the server's own instructions are
		prompt += pageNote(page)
	}
	return meteredModel{site.Meter(site.Model(s.cfg.Model), id), s.metrics}, prompt, lim
}

// Gatherer gives the metrics of /metrics (for the operator console's charts).
func (s *Server) Gatherer() prometheus.Gatherer { return s.metrics.reg }
