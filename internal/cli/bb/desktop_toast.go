package bb

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// Windows desktop notifications: a toast raised by Windows PowerShell (on
// every Windows 10 and 11, nothing to install) through the WinRT toast API
// (Windows.UI.Notifications). The script is fixed; the title and text
// reach it through the environment, so nothing an agent wrote is ever
// parsed as PowerShell or as XML (they become XML text nodes).

// toastAppID is Windows PowerShell's own application id: a toast must name
// an application Windows knows, and this one is registered on every
// machine (the one the BurntToast module uses by default).
const toastAppID = `{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\WindowsPowerShell\v1.0\powershell.exe`

// toastScript shows one toast: $env:BB_TOAST_TITLE in bold, then
// $env:BB_TOAST_TEXT.
const toastScript = `$ErrorActionPreference = 'Stop'
$null = [Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime]
$null = [Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime]
$xml = New-Object Windows.Data.Xml.Dom.XmlDocument
$xml.LoadXml('<toast><visual><binding template="ToastGeneric"><text/><text/></binding></visual></toast>')
$texts = $xml.GetElementsByTagName('text')
$null = $texts.Item(0).AppendChild($xml.CreateTextNode($env:BB_TOAST_TITLE))
$null = $texts.Item(1).AppendChild($xml.CreateTextNode($env:BB_TOAST_TEXT))
$toast = New-Object Windows.UI.Notifications.ToastNotification $xml
[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('` + toastAppID + `').Show($toast)
`

// toastCommand is the command line (program first) and the extra
// environment that show one toast through powershell.
func toastCommand(powershell, title, text string) (args, env []string) {
	return []string{powershell, "-NoProfile", "-NonInteractive", "-WindowStyle", "Hidden", "-EncodedCommand", encodePowerShell(toastScript)},
		[]string{"BB_TOAST_TITLE=" + envValue(title), "BB_TOAST_TEXT=" + envValue(text)}
}

// encodePowerShell is a script as -EncodedCommand takes it: base64 of its
// UTF-16LE bytes.
func encodePowerShell(script string) string {
	units := utf16.Encode([]rune(script))
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// envValue makes s fit an environment variable: one line, no NUL.
func envValue(s string) string {
	return strings.NewReplacer("\x00", "", "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
