// Command tailscope-bench-otelcol is a minimal OpenTelemetry Collector
// distribution for bench:ingest: the OTLP receiver, the batch processor and
// the nop exporter (stores nothing), the components of the core
// distribution's ingest path, built from released modules.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/nopexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

func components() (otelcol.Factories, error) {
	return otelcol.Factories{
		Receivers:  otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()),
		Processors: otelcol.MakeFactoryMap[processor.Factory](batchprocessor.NewFactory()),
		Exporters:  otelcol.MakeFactoryMap[exporter.Factory](nopexporter.NewFactory()),
	}, nil
}

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "tailscope-bench-otelcol",
			Description: "OTLP receiver, batch processor, nop exporter (bench:ingest)",
			Version:     "0.165.0",
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		log.Fatal(err)
	}
}
