// Measuring the G2 font (measure_widths.py drives it): each click on the glasses' touchpad shows the
// next sample of `#samples=<JSON list>` alone in a full-width text container, so a screenshot of
// each gives that text's width in the font the glasses draw with.
import { waitForEvenAppBridge } from "@evenrealities/even_hub_sdk";

const samples = JSON.parse(new URLSearchParams(location.hash.slice(1)).get("samples") || "[]");
const CONTAINER = { containerID: 1, containerName: "sample" };

async function main() {
  const bridge = await waitForEvenAppBridge();
  await bridge.createStartUpPageContainer({
    containerTotalNum: 1,
    textObject: [{ ...CONTAINER, xPosition: 0, yPosition: 0, width: 576, height: 288, content: "", isEventCapture: 1 }],
  });
  let next = 0;
  bridge.onEvenHubEvent(async (event) => {
    if (!event.textEvent && !event.sysEvent) return;
    if (next >= samples.length) return;
    const index = next++;
    const ok = await bridge.textContainerUpgrade({ ...CONTAINER, content: samples[index] });
    console.log("measure: " + JSON.stringify({ index, ok }));
  });
  console.log("measure: ready " + samples.length);
}

main().catch((err) => console.error("measure: " + err));
